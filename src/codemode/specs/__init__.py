"""Spec files: load, validate, index and write the vowel-compatible YAML eval specs."""
