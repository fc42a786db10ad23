"""Functions that misbehave in every way a worker must survive, and one that behaves."""
