"""GitHub: the Action's event and outputs (``github.event``) and the sticky PR comment (``github.api``).

Takes a ``Report`` and the runner's environment; gives a posted comment, job summary and outputs.
``github.api`` is the only module that imports PyGithub.
"""
