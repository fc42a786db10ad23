"""Explore, the model loop: the model writes snippets that run in Monty, then chooses cases."""
