"""The canonical form's tags: the keys that mark a value JSON and YAML have no type for.

Imported by the worker's stdlib-only modules and by ``codemode.compare`` (the parent's
comparison), so both sides read and write one set of tags. Constants only: it imports nothing.
"""

BYTES_TAG = "$bytes"
OBJECT_TAG = "$class"  # custom objects: {"$class": "mod.Class", attr: value, ...}
REPR_TAG = "$repr"  # values whose repr is faithful (no memory address): re.Pattern, complex...
UNREPRESENTABLE_TAG = "$unrepresentable"
