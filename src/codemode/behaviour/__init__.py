"""Behaviour diff: run the old and the new version of each changed function on one pool of
inputs and report every call whose outcome the change altered (a witness, #18).

Sits above ``explore`` (its inputs come from ``explore.offline.input_pool``) and below the delivery layers
(``cli``, ``github``), which compose it with ``check``: ``check`` cannot import ``explore``.
"""
