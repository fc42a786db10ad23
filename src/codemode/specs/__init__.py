"""Spec files: load, validate, index and write the vowel-compatible YAML eval specs."""

# Top-level keys that are not function ids (vowel's and ours). Here rather than in
# specs.types so that the hook's fast path can read it without building those records.
RESERVED_KEYS = ("codemode", "fixtures", "serializers")
