"""One function per flow, below every delivery: the CLI (``cli/*_cmd.py``, and the hooks
through it) and the GitHub Action (``github/action.py``) call these and combine nothing
themselves, so a pull request gives the same spec edits and report whichever way it runs
(#34; pre-commit's ``commands/*`` is the model). ``checking.check``: ``check`` in any scope,
the hook's fast path included; ``regenerating.regen``: ``regen``, and in a change scope the
behaviour diff's witnesses recorded as cases, in one report."""
