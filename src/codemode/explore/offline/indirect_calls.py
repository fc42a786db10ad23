"""Calls a test makes by handing the function and its arguments to another call (#32).

::

    self.assertRaises(JsonPointerException, resolve_pointer, doc, "/foo/0")
    pytest.raises(ValueError, parse, "1.2.x")

call ``resolve_pointer(doc, "/foo/0")`` and ``parse("1.2.x")``: unittest's ``assertRaises``
and pytest's ``raises`` (and their kin below, as both documents them) take the callable and
pass it the arguments that follow, keywords included. A release that starts raising is
tested so, more often than not, and those calls were not read as calls of the function.
Each such call is read as the call it makes, at its place in the test (its rows, its loop's
names and its function's assignments bind it as any other call's).
"""

from __future__ import annotations

import ast

# The position of the callable among the positional arguments (unittest.TestCase's
# assert* methods and pytest's raises/warns/deprecated_call, from their documentation).
CALLABLE_AT = {
    "assertRaises": 1,
    "assertRaisesRegex": 2,
    "assertRaisesRegexp": 2,
    "failUnlessRaises": 1,
    "assertWarns": 1,
    "assertWarnsRegex": 2,
    "raises": 1,
    "warns": 1,
    "deprecated_call": 0,
}


def made_call(node: ast.Call) -> ast.Call | None:
    """The call ``node`` makes of the callable it is handed, or None (not such a call, or
    the context-manager form, which hands no callable)."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    at = CALLABLE_AT.get(name)
    if at is None or len(node.args) <= at or isinstance(node.args[at], ast.Starred):
        return None
    fn = node.args[at]
    if not isinstance(fn, (ast.Name, ast.Attribute)):
        return None  # a lambda or a call's result: not the function named
    call = ast.Call(func=fn, args=list(node.args[at + 1 :]), keywords=list(node.keywords))
    return ast.copy_location(call, node)
