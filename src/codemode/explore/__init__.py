"""Explore: observe what a function does, then choose which observations become cases (regen, accept).

Takes changed functions and a model (or none: the offline explorer); gives spec edits whose
expected values are copied from recorded calls, never from a model's text. ``explore.writing``
(regen, accept) decides and writes; the other modules only observe and choose.
"""
