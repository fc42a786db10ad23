"""codemode: keep a project's eval specs true by running the real code."""

__version__ = "0.1.0"
