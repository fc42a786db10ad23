"""A small bookkeeping library: the target of codemode's own verification tests."""
