"""Report: the one ``Report`` value (``report.model``) and its renderings.

Takes verdicts; gives terminal text, Markdown (PR comment, job summary), GitHub annotations
and JUnit XML as strings. Nothing here prints, writes files or calls GitHub.
"""
