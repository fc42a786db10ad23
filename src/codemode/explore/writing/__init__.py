"""Explore, regen and accept: what a run covers, the gate before writing, the spec edits."""
