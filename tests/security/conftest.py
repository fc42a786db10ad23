"""tests/security: every attack of issue #11 against the real CLI, worker, Monty and git."""
