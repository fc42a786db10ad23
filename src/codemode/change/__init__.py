"""Change: from git refs, the index or the work tree to the functions a change touched.

Takes a scope (``--staged``, ``--base/--head``, paths); gives each function's status (added,
modified, removed, renamed, impacted) with its fingerprint. ``change.git`` is the only module that runs git.
"""
