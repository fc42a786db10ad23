"""A small shop: the embedded example codemode checks."""
