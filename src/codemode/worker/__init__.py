"""The worker: the user's functions run in a separate process of the project's interpreter."""
