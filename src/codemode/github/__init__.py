"""GitHub: the Action's steps (``action``, ``inputs``), delivery (``delivery``), the runner's event
and files (``event``) and the sticky PR comment (``api``, the only module that imports PyGithub).

Takes the Action's inputs, the event and a ``Report``; gives a report file, annotations, job summary,
outputs and one comment. The step that runs the project's code holds no token (docs/security.md).
"""
