"""Specs that see what a release changes (#12): the maintainers' examples varied at their
edge, options of a positional-only function set, one case per class of input.

Each test writes a real project in a temp git repository, bootstraps its spec with the
real CLI and worker, checks it passes, then makes the kind of edit a release makes and
checks that the spec now fails.
"""

from __future__ import annotations

from pathlib import Path

from projectkit import cases, meta, project, regen, spec

from codemode.cli.main import main


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _check(root: Path, module: str) -> int:
    return main(["check", "--root", str(root), str(root / "specs" / f"{module}.yml")])


CODES = '''
    import re

    def is_code(value: str) -> bool:
        """Whether ``value`` is a product code.

        >>> is_code("AB-12")
        True
        """
        return re.fullmatch(r"[A-Z]{2}-[0-9]{2}.?", value) is not None
'''


def test_an_example_varied_at_its_edge_becomes_a_case(tmp_path: Path) -> None:
    # 'AB-12!' is accepted by the old pattern's `.?`: only a variant of the docstring's own
    # example reaches it; no type-directed text looks like a product code.
    root = project(tmp_path, {"src/pkg/codes.py": CODES})
    report = regen(root, "pkg.codes.is_code")
    assert report["functions"][0]["status"] == "ok", report  # type: ignore[index]
    written = spec(root, "pkg.codes")
    assert "variants" in meta(written, "pkg.codes.is_code")["sources"]  # type: ignore[operator]
    ids = [c["id"] for c in cases(written, "pkg.codes.is_code")]
    assert "docstring_trailing_punctuation" in ids, ids  # ids under 32 characters (#23)
    assert _check(root, "pkg.codes") == 0
    _edit(root, "src/pkg/codes.py", "[0-9]{2}.?", "[0-9]{2}")  # the release: no trailing mark
    assert _check(root, "pkg.codes") == 1


DOMAINS = """
    import re

    def hostname(value: str, /, *, trailing_dot: bool = False) -> bool:
        end = r"\\.?$" if trailing_dot else "$"
        return re.match(r"^[a-z0-9-]+(\\.[a-z0-9-]+)*" + end, value) is not None
"""
DOMAIN_TESTS = """
    import pytest
    from pkg.net import hostname

    @pytest.mark.parametrize(("value", "dot"), [("example.com", False), ("example.com.", True)])
    def test_valid(value, dot):
        assert hostname(value, trailing_dot=dot)
"""


def test_options_of_a_positional_only_function_are_set_in_cases(tmp_path: Path) -> None:
    # `hostname(value, /, *, trailing_dot=...)`: a call with both is one `inputs` mapping,
    # which the worker passes by position for `value`. Before, no such call could be a
    # case, so no case ever set the option.
    root = project(tmp_path, {"src/pkg/net.py": DOMAINS, "tests/test_net.py": DOMAIN_TESTS})
    report = regen(root, "pkg.net.hostname")
    assert report["functions"][0]["status"] == "ok", report  # type: ignore[index]
    got = cases(spec(root, "pkg.net"), "pkg.net.hostname")
    with_option = [
        c for c in got if isinstance(c["inputs"], dict) and c["inputs"].get("trailing_dot")
    ]
    assert with_option, got
    assert _check(root, "pkg.net") == 0
    _edit(root, "src/pkg/net.py", 'r"\\.?$" if trailing_dot', 'r"$" if trailing_dot')
    assert _check(root, "pkg.net") == 1


SNAKE = """
    import re

    def to_snake(text: str) -> str:
        return re.sub(r"([a-z0-9])([A-Z])", r"\\1_\\2", text).lower()
"""
SNAKE_TESTS = """
    import pytest
    from pkg.case import to_snake

    @pytest.mark.parametrize(
        ("given", "want"),
        [
            ("fooBar", "foo_bar"),
            ("FooBar", "foo_bar"),
            ("fooBarBaz", "foo_bar_baz"),
            ("foo", "foo"),
            ("HTTPServer", "httpserver"),
            ("a1B", "a1_b"),
            ("userID", "user_id"),
            ("x", "x"),
            ("camelCaseString", "camel_case_string"),
            ("already_snake", "already_snake"),
        ],
    )
    def test_to_snake(given, want):
        assert to_snake(given) == want
"""


def test_each_class_of_input_gets_a_case_beside_the_maintainers_own(tmp_path: Path) -> None:
    # The maintainers' ten rows kill every mutant; a release that trims the text changes
    # only inputs with surrounding whitespace, a class those rows never show. One case per
    # class of input (a padded example, type-directed whitespace) is what sees it.
    root = project(tmp_path, {"src/pkg/case.py": SNAKE, "tests/test_case.py": SNAKE_TESTS})
    report = regen(root, "pkg.case.to_snake")
    [func] = report["functions"]  # type: ignore[index]
    assert func["status"] == "ok" and func["mutation_score"] == 1.0, func
    got = cases(spec(root, "pkg.case"), "pkg.case.to_snake")
    inputs = [c["inputs"][0] for c in got]  # type: ignore[index]
    assert any(str(v) != str(v).strip() for v in inputs), inputs
    assert _check(root, "pkg.case") == 0
    _edit(root, "src/pkg/case.py", "text).lower()", "text.strip()).lower()")
    assert _check(root, "pkg.case") == 1
