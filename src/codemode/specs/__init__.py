"""Specs: load, validate, index and write the vowel-compatible YAML eval specs.

Takes spec files (hostile text); gives typed ``SpecFile`` records and, in update modes, atomic edits.
"""

# Top-level keys that are not function ids (vowel's and ours). Here rather than in
# specs.types so that the hook's fast path can read it without building those records.
RESERVED_KEYS = ("codemode", "fixtures", "serializers")
