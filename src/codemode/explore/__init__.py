"""Exploration: observe what a function does, then choose which observations become cases.

Phase 1 runs snippets (an LLM's, in the Monty sandbox) or planned calls (the offline
explorer's) whose every call of the target is delegated to the worker and recorded.
Phase 2 picks recorded calls; expected values are copied from the record, never from
a model's text. Nothing here writes files: ``codemode.regen`` decides and writes.
"""
