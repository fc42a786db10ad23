"""Check: verify the specs a change affects by running the real functions in the worker.

Takes a scope, the spec index and a worker; gives a ``Report`` with a verdict per function
and per case. Writes nothing: the CLI and the delivery layer act on the report.
"""
