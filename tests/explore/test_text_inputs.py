"""Offline inputs built from what text code looks for (#12): the literals a body checks with
``endswith``/``in``, a string each of its regular expressions matches, bytes for a body that
decodes, and list items that hold the characters the code treats specially.

Each test writes a real project in a temp dir, runs `codemode regen` (the real worker), then
makes the small edit a mutant models and checks that the written spec catches it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import yaml

from codemode.cli.main import main


def _project(tmp_path: Path, source: str) -> Path:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.codemode]\nsource_roots = ["src"]\n')
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "__init__.py").write_text("")
    (root / "src" / "pkg" / "text.py").write_text(textwrap.dedent(source), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _regen(root: Path, *names: str) -> dict[str, dict[str, object]]:
    argv = [str(Path(sys.executable).parent / "codemode"), "regen", "--root", str(root)]
    argv += ["--format", "json"]
    for name in names:
        argv += ["--function", f"pkg.text.{name}"]
    out = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr
    return {f["id"].rsplit(".", 1)[-1]: f for f in json.loads(out.stdout)["functions"]}


def _inputs(root: Path, name: str) -> list[object]:
    spec = yaml.safe_load((root / "specs" / "pkg.text.yml").read_text())
    return [item["case"].get("inputs") for item in spec[f"pkg.text.{name}"]["dataset"]]


STRICT = "drifted,error,message_changed"


def _caught(root: Path, old: str, new: str) -> bool:
    """Whether the spec fails once ``old`` is replaced by ``new`` in the source (a case whose
    exception message alone changed too: it fails on request, #32)."""
    path = root / "src" / "pkg" / "text.py"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    spec = str(root / "specs" / "pkg.text.yml")
    try:
        return main(["check", "--root", str(root), "--fail-on", STRICT, spec]) == 1
    finally:
        path.write_text(text, encoding="utf-8")


def test_each_literal_the_body_checks_reaches_it_even_after_many_general_texts(
    tmp_path: Path,
) -> None:
    # Many literals: the general texts used to fill the parameter's values before the
    # later literals ('ch', 'es') were reached, so their branches were never run.
    root = _project(
        tmp_path,
        """
        def plural(word: str) -> str:
            w = word.strip().lower()
            if w.endswith("y") and w[-2:-1] not in "aeiou":
                return w[:-1] + "ies"
            if w.endswith("s") or w.endswith("x") or w.endswith("ch"):
                return w if w.endswith("es") else w + "es"
            return w + "s"
        """,
    )
    funcs = _regen(root, "plural")
    assert funcs["plural"]["status"] == "ok", funcs
    assert _caught(root, 'w.endswith("ch")', 'w.endswith("zz")')
    assert _caught(root, 'w.endswith("es")', 'w.endswith("ez")')


def test_a_string_each_regex_of_the_function_matches_is_an_input(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        r'''
        import re

        ENTITY = re.compile(r"&#(\d+);")
        CODE = re.compile(r"""
            \x1b \[      # escape, bracket
            [0-9;]* m    # parameters, then the final letter
        """, re.VERBOSE)

        def unescape(text: str) -> str:
            return ENTITY.sub(lambda m: chr(int(m.group(1))), text)

        def plain(text: str) -> str:
            return CODE.sub("", text)
        ''',
    )
    funcs = _regen(root, "unescape", "plain")
    assert funcs["unescape"]["status"] == funcs["plain"]["status"] == "ok", funcs
    assert _caught(root, "chr(int(m.group(1)))", "str(int(m.group(1)))")
    assert _caught(root, 'CODE.sub("", text)', 'CODE.sub(" ", text)')


def test_bytes_reach_a_body_that_decodes_but_never_a_str_parameter(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        """
        def as_text(data):
            if isinstance(data, bytes):
                return data.decode("utf-8", "replace")
            return data.strip()

        def shout(text: str) -> str:
            if isinstance(text, bytes):
                text = text.decode("latin-1")
            return text.upper()

        def kind(text: str | bytes) -> str:
            if isinstance(text, bytes):
                text = text.decode("ascii", "replace")
            for word in ("alpha", "beta", "gamma", "delta", "eta", "theta", "iota", "kappa"):
                if text.startswith(word):
                    return word
            return text
        """,
    )
    funcs = _regen(root, "as_text", "shout", "kind")
    assert funcs["as_text"]["status"] == "ok", funcs
    assert any(isinstance(i[0], bytes) for i in _inputs(root, "as_text"))  # type: ignore[index]
    assert _caught(root, '"utf-8", "replace"', '"utf-8", "ignore"')  # an invalid byte
    # str | bytes: the bytes are not crowded out by the many texts its literals imply
    assert _caught(root, '"ascii", "replace"', '"ascii", "ignore"')
    assert all(isinstance(i, list) and isinstance(i[0], str) for i in _inputs(root, "shout"))


def test_list_items_hold_the_characters_the_code_escapes(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        r"""
        def join_args(args: list[str]) -> str:
            out = []
            for arg in args:
                arg = arg.replace("\\", "\\\\").replace('"', '\\"')
                out.append(f'"{arg}"' if " " in arg or not arg else arg)
            return " ".join(out)
        """,
    )
    funcs = _regen(root, "join_args")
    assert funcs["join_args"]["status"] == "ok", funcs
    assert _caught(root, """replace('"', '\\\\"')""", """replace('"', '"')""")
    assert _caught(root, 'replace("\\\\", "\\\\\\\\")', 'replace("\\\\", "\\\\")')


def test_inputs_from_what_the_body_reads_tables_delimiters_and_type_checks(
    tmp_path: Path,
) -> None:
    root = _project(
        tmp_path,
        r"""
        IRREGULAR = {"child": "children", "person": "people", "mouse": "mice"}

        def plural(word: str) -> str:
            if word in IRREGULAR:
                return IRREGULAR[word]
            return word + "s"

        def parse_ids(text: str, sep: str = ",") -> list[int]:
            return sorted(int(part) for part in text.split(sep) if part)

        def has_tab(text: str) -> bool:
            return "\t" in text and " " not in text

        def ordinal(number: str) -> str:
            if len(number) > 1 and number[-2] == "1":
                return number + "th"
            return number + {"1": "st", "2": "nd", "3": "rd"}.get(number[-1], "th")

        def width(value):
            if isinstance(value, str):
                return len(value)
            if isinstance(value, bytes):
                return len(value.decode("utf-8"))
            raise ValueError("expected text, not %r" % type(value))
        """,
    )
    funcs = _regen(root, "plural", "parse_ids", "has_tab", "ordinal", "width")
    assert all(f["status"] == "ok" for f in funcs.values()), funcs
    caught = {
        "a key of the table": _caught(root, "if word in IRREGULAR:", "if False:"),
        "numbers joined by the default sep": _caught(root, "return sorted(", "return list("),
        "a tab without spaces": _caught(root, '"\\t" in text and', '"\\n" in text and'),
        "an int reaching the raise": _caught(root, "% type(value))", "% value)"),
        "a digit in the tens place": _caught(root, 'number[-2] == "1"', 'number[-2] == "2"'),
    }
    assert all(caught.values()), caught


def test_a_docstring_example_sees_the_names_earlier_examples_defined(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        '''
        def unwrap(text: str, ending: str = "\\n\\n") -> str:
            """Join wrapped lines.

            >>> text = "Short\\\\n lines\\\\n\\\\nNext"
            >>> unwrap(text)
            'Short lines\\\\n\\\\nNext'
            """
            paragraphs, current = [], []
            for line in text.splitlines():
                if line.strip():
                    current.append(line.strip())
                else:
                    paragraphs.append(" ".join(current))
                    current = []
            if current:
                paragraphs.append(" ".join(current))
            return ending.join(paragraphs)
        ''',
    )
    funcs = _regen(root, "unwrap")
    assert funcs["unwrap"]["status"] == "ok", funcs
    assert ["Short\n lines\n\nNext"] in _inputs(root, "unwrap")


def test_a_limit_on_the_text_length_and_a_none_option_are_tried(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        """
        def truncate(text: str, limit: int = 0, at_word: bool = False) -> str:
            if not limit or len(text) <= limit:
                return text
            if not at_word:
                return text[:limit]
            out = ""
            for word in text.split():
                if len(out) + len(word) == limit:
                    return out + word
                if len(out) + len(word) > limit:
                    break
                out += word + " "
            return out.strip()

        def paragraphs(text: str, ending="\\n\\n"):
            found = [p.strip() for p in text.split("\\n\\n")]
            if ending is None:
                return found
            return ending.join(found)
        """,
    )
    funcs = _regen(root, "truncate", "paragraphs")
    assert all(f["status"] == "ok" for f in funcs.values()), funcs
    caught = {
        # a limit that falls on a word's end: 'Hello World' with limit=5, at_word=True
        "a limit at a word's end": _caught(root, "return out + word", "return out"),
        "ending=None": _caught(root, "return found\n", "return len(found)\n"),
    }
    assert all(caught.values()), caught


def test_records_carry_the_keys_the_body_reads_and_a_match_comes_padded(
    tmp_path: Path,
) -> None:
    root = _project(
        tmp_path,
        r"""
        import re

        EMAIL = re.compile(r"[a-z]+@[a-z]+\.[a-z]{2,}$")

        def totals(lines: list[dict]) -> dict[str, int]:
            out: dict[str, int] = {}
            for line in lines:
                out[line["code"]] = out.get(line["code"], 0) + line["count"]
            return out

        def valid(address: str) -> bool:
            return bool(EMAIL.match(address.strip()))
        """,
    )
    funcs = _regen(root, "totals", "valid")
    assert all(f["status"] == "ok" for f in funcs.values()), funcs
    caught = {
        "rows with the keys read": _caught(root, '+ line["count"]', "+ 1"),
        "a padded address": _caught(root, "address.strip()", "address"),
    }
    assert all(caught.values()), caught


def test_a_pattern_that_backtracks_without_bound_does_not_hang_regen(tmp_path: Path) -> None:
    # the example built for it ('a' * 50 + 'x') fails the end: an unbounded search would
    # run for hours on the host, where regen checks the examples it builds
    root = _project(
        tmp_path,
        r"""
        import re

        RUNS = re.compile(r"^((a|aa){10}){5}(?=x)$")

        def runs(text: str) -> bool:
            return RUNS.search(text[:8]) is not None
        """,
    )
    argv = [str(Path(sys.executable).parent / "codemode"), "regen", "--root", str(root)]
    argv += ["--function", "pkg.text.runs"]
    out = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    assert (root / "specs" / "pkg.text.yml").exists()


def test_a_regex_match_holds_the_characters_the_body_splits_it_on(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        r"""
        import re

        URL = re.compile(r"^(?P<scheme>[a-z]+)://(?P<authority>[^/?#]*)")

        def host_of(url: str) -> str:
            m = URL.match(url)
            if not m:
                raise ValueError("not a url")
            _, _, hostport = m.group("authority").rpartition("@")
            return hostport.partition(":")[0]
        """,
    )
    funcs = _regen(root, "host_of")
    assert funcs["host_of"]["status"] == "ok", funcs
    # 'aa://7@7:7': the authority holds the '@' and ':' the body splits on
    caught = {
        "@": _caught(root, 'rpartition("@")', 'rpartition("!")'),
        ":": _caught(root, 'partition(":")', 'partition("!")'),
    }
    assert all(caught.values()), caught


def test_template_text_and_each_side_of_an_alternation_are_inputs(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        r"""
        import re
        from string import Formatter

        FIELD = re.compile(r"({{)|(}})|({[:!.}])")

        def field_names(template: str) -> list[str]:
            return [name for _, name, _, _ in Formatter().parse(template) if name]

        def number_fields(template: str) -> str:
            out, n = "", 0
            for m in FIELD.finditer(template):
                if m.group() in ("{{", "}}"):
                    continue
                out += "{%d%s" % (n, m.group()[1:])
                n += 1
            return out
        """,
    )
    funcs = _regen(root, "field_names", "number_fields")
    assert all(f["status"] == "ok" for f in funcs.values()), funcs
    caught = {
        "a replacement field": _caught(root, "[name for", "[name.upper() for"),
        "the last branch": _caught(root, "m.group()[1:])", "m.group()[2:])"),
    }
    assert all(caught.values()), caught


def test_an_untyped_parameter_whose_items_are_compared_with_words_gets_lists(
    tmp_path: Path,
) -> None:
    root = _project(
        tmp_path,
        """
        def resolve(parts):
            out = []
            for part in parts:
                if part == "..":
                    if out:
                        out.pop()
                elif part != ".":
                    out.append(part)
            return out
        """,
    )
    funcs = _regen(root, "resolve")
    assert funcs["resolve"]["status"] == "ok", funcs
    # no character of a text equals '..': only a list of segments reaches the pop
    assert _caught(root, "out.pop()", "out.append(part)")
