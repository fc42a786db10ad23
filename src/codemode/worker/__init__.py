"""The worker: the user's functions run in a separate process of the project's interpreter.

Takes a call (function id, arguments, fixtures); gives an ``Outcome`` in canonical data, under a timeout and memory limit.
"""
