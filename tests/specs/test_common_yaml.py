"""The common-YAML reader (specs/common_yaml.py) gives the full loader's records, or declines.

Hypothesis writes spec files from pieces where YAML is easy to get wrong (plain words YAML
1.1 reads as booleans, nulls, numbers or dates; JSON numbers YAML reads as strings; escapes;
quotes; comments; indentation; duplicate keys; tabs; CR line ends; flows where the loader
walks entries) and each file is read both ways: when the reader does not decline, the records
are the full loader's, value for value and line for line. The files codemode and JSON
generators write are checked to be read by it (else it would save nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from codemode.specs.common_yaml import read_tree
from codemode.specs.load import parse_spec_text, parse_with_events
from codemode.specs.parsed_cache import flatten
from codemode.specs.write import flow

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PATH = Path("specs/x.yml")

# Plain scalars: what YAML 1.1 (PyYAML, libyaml) reads as a bool, null, int, float, date,
# merge or value key, or a string, and some the reader must leave to the loader.
PLAIN = [
    "yes", "No", "on", "OFF", "y", "n", "true", "False", "null", "Null", "~", "tea",
    "Tea cup", "Nothing", "1", "-1", "+5", "0", "-0", "017", "0o17", "0x1F", "0b101",
    "1_000", "12:30", "190:20:30", "1.5", "-2.25", "0.", ".5", "1e5", "1.0e+5", "1.0E-3",
    "1.0e5", ".nan", ".NaN", ".inf", "-.Inf", "NaN", "Infinity", "2024-01-01",
    "2024-01-01 10:00:00", "=", "<<", "it's", "a b", "a  b", "-x", "x-y", "a:b", "x#y",
    "café", "日本", "a,b", "99999999999999999999999", "1" * 4001,
]  # fmt: skip
# Double-quoted bodies: YAML's escapes, JSON's, and those where the two differ.
ESCAPED = [
    "plain", "a\\nb", "\\x41", "\\u00e9", "\\U0001F600", "\\ud83d\\ude00", "\\/", "\\t",
    '\\"', "\\\\", "\\N", "\\_", "\\L", "\\e", "\\0", "\\ ", "\\q", "\\x4", "# not a comment",
    "a: b", "it's", "",
]  # fmt: skip

ident = st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True)
plain = st.sampled_from(PLAIN)
scalar_text = st.one_of(
    plain,
    st.sampled_from(ESCAPED).map(lambda s: f'"{s}"'),
    st.sampled_from([*PLAIN, "", "it''s"]).map(lambda s: f"'{s}'"),
)


def _flow_text(draw: Any, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["scalar", "scalar", "list", "map"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        return str(draw(scalar_text))
    sep = draw(st.sampled_from([", ", ",", " , ", ",  "]))
    if kind == "list":
        items = [_flow_text(draw, depth + 1) for _ in range(draw(st.integers(0, 3)))]
        return "[" + sep.join(items) + draw(st.sampled_from(["]", " ]", ",]"]))
    keys = draw(st.lists(ident | st.sampled_from([*PLAIN[:6], '"q"', "'s'"]), max_size=3))
    colon = draw(st.sampled_from([": ", ":  ", ":"]))
    items = [f"{k}{colon}{_flow_text(draw, depth + 1)}" for k in keys]
    return "{" + sep.join(items) + draw(st.sampled_from(["}", " }"]))


@st.composite
def flow_value(draw: Any) -> str:
    return _flow_text(draw)


json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def case_line(draw: Any, n: int) -> str:
    """One dataset item, in one of the forms people and generators write."""
    form = draw(st.sampled_from(["flow"] * 3 + ["json"] * 2 + ["block", "item_flow", "odd"]))
    fields = {"id": f"c{n}", "input": draw(flow_value())}
    if draw(st.booleans()):
        fields["expected"] = draw(flow_value())
    if form == "json":
        data = {"id": f"c{n}", "inputs": draw(json_value), "expected": draw(json_value)}
        sep = draw(st.sampled_from([(", ", ": "), (",", ":")]))
        text = json.dumps(data, separators=sep, ensure_ascii=draw(st.booleans()))
        return f"    - case: {text}"
    body = ", ".join(f"{k}: {v}" for k, v in fields.items())
    if form == "flow":
        comment = draw(st.sampled_from(["", "  # a comment", " #c"]))
        return f"    - case: {{{body}}}{comment}"
    if form == "item_flow":
        return f"    - {{case: {{{body}}}}}"
    if form == "block":
        lines = [f"        {k}: {v}" for k, v in fields.items()]
        return "    - case:\n" + "\n".join(lines)
    return draw(
        st.sampled_from(
            [
                f"    - case: {{{body}, id: again}}",  # a duplicate key
                f"    - case:\t{{{body}}}",
                f"    - case: {{{body}}}\r",
                f"    - case: &a {{{body}}}",
                f"    - case: !!map {{{body}}}",
                f"    - case: {{{body}",
                f"    - case: {{{body}}} trailing",
                f"    - case: {{{body}}}\n      continued",
                f"    -   case: {{{body}}}",
                f"    - case: {{{body}, match: x}}",
            ]
        )
    )


@st.composite
def spec_text(draw: Any) -> str:
    parts = [draw(st.sampled_from(["", "# a header\n", "\n", "---\n", "%YAML 1.1\n---\n"]))]
    if draw(st.booleans()):
        parts.append("fixtures:\n  db: {setup: shop.make_db, scope: eval}\n")
    for _ in range(draw(st.integers(1, 3))):
        fid = draw(st.sampled_from(["m.f", "pkg.mod.g", "len", "yes", "m.f", "fixture"]))
        parts.append(f"{fid}:\n")
        evals = draw(st.sampled_from(["", "{type: int}", "int", "[x]", "flow"]))
        if evals == "flow":  # entries the loader reads one by one, in one flow
            parts.append("  evals: {T: {type: int}}\n")
        elif evals:
            parts.append(f"  evals:\n    T: {evals}\n")
        if draw(st.booleans()):
            parts.append(f"  fixture: {draw(st.sampled_from(['[db]', 'db', '[other]']))}\n")
        dataset = draw(st.sampled_from(["  dataset:\n", "  dataset:\n", "  dataset: # cases\n"]))
        cases = [draw(case_line(n)) for n in range(draw(st.integers(1, 4)))]
        if draw(st.integers(0, 5)) == 0:  # a sequence at its key's column
            cases = [c.replace("    -", "  -", 1).replace("\n      ", "\n    ") for c in cases]
        parts.append(dataset + "\n".join(cases) + "\n")
        parts.append(draw(st.sampled_from(["", "\n", "\n# between\n"])))
    if draw(st.booleans()):
        parts.append("codemode:\n  version: 1\n  functions:\n    m.f: {generated: [c0]}\n")
    return "".join(parts)


def _both(text: str) -> tuple[Any, Any]:
    return flatten(parse_spec_text(text, PATH, "x.yml")), flatten(
        parse_with_events(text, PATH, "x.yml")
    )


@SETTINGS
@given(spec_text())
@example("m.f:\n  dataset:\n    - case: {id: a, input: 1e5, expected: .nan}\n")
@example('m.f:\n  dataset:\n    - case: {"id": "a", "input": 1e5, "expected": "\\u00e9"}\n')
@example("m.f:\n  dataset:\n    - case: {id: a, input: " + "1" * 4001 + "}\n")
@example("m.f:\n  evals: {T: {type: int}}\n  dataset:\n    - case: {id: a, input: 1}\n")
@example("m.f:\n  dataset:\n    - case: {id: a, input:1}\n")
@example('m.f:\n  dataset:\n    - case: {id: a, input: "\\ud83d\\ude00"}\n')
@example('m.f:\n  dataset:\n    - case: {"id": "a", "input": 1, "input": 2}\n')
def test_the_reader_gives_the_loaders_records_or_declines(text: str) -> None:
    fast, slow = _both(text)
    assert repr(fast) == repr(slow)  # repr: NaN is NaN, and 1 is not True


def test_the_forms_codemode_and_json_write_are_read_without_the_loader() -> None:
    cases = [
        {"id": "basic", "inputs": [100.0, 0.1], "expected": 90.0},
        {"id": "kw", "inputs": {"price": 1, "rate": 0.5}, "raises": "ValueError", "match": "x"},
        {"id": "text", "input": "Tea cup No. 7!", "expected": ["tea", "cup"]},
    ]
    codemode_form = "".join(f"    - case: {flow(c)}\n" for c in cases)
    json_form = "".join(f"    - case: {json.dumps(c)}\n" for c in cases)
    for dataset in (codemode_form, json_form):
        text = (
            "# header\nfixtures:\n  db: {setup: m.make_db}\n\n"
            "m.f:\n  fixture: [db]\n  evals:\n    IsFloat: {type: float}\n"
            f"  dataset:\n{dataset}\n"
            "codemode:\n  version: 1\n  functions:\n    m.f:\n      generated: [basic]\n"
        )
        assert read_tree(text) is not None
        fast, slow = _both(text)
        assert repr(fast) == repr(slow)


KIND = '''\
def kind(value):
    """The value as the function receives it: its type and repr."""
    return f"{type(value).__name__}:{value!r}"
'''
# Each input as YAML 1.1 reads it (plain words as bools, "1e5" as a string, escapes...), in
# codemode's flow form, in JSON, and in block form: the expectations are the loader's reading.
KIND_SPEC = """\
kinds.kind:
  dataset:
    - case: {id: yes_word, input: yes, expected: "bool:True"}
    - case: {id: off_word, input: Off, expected: "bool:False"}
    - case: {id: tilde, input: ~, expected: "NoneType:None"}
    - case: {id: no_dot_exponent, input: 1e5, expected: "str:'1e5'"}
    - case: {id: float_exponent, input: 1.0e+5, expected: "float:100000.0"}
    - case: {id: octal, input: 017, expected: "int:15"}
    - case: {id: escapes, input: "\\x41\\u00e9\\N", expected: "str:'A\\u00e9\\\\x85'"}
    - case: {"id": "json_exponent", "input": 1e5, "expected": "str:'1e5'"}
    - case: {"id": "json_int", "input": 12, "expected": "int:12"}  # a comment
    - case:
        id: block
        input: 'it''s'
        expected: "str:\\"it's\\""
"""


def test_check_reads_yaml_1_1_values_through_the_common_reader(tmp_path: Path) -> None:
    root = tmp_path / "kinds"
    (root / "specs").mkdir(parents=True)
    (root / "kinds.py").write_text(KIND)
    (root / "pyproject.toml").write_text('[tool.codemode]\nspecs = ["specs/*.yml"]\n')
    (root / "specs" / "kinds.yml").write_text(KIND_SPEC, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    assert read_tree(KIND_SPEC) is not None  # the file is the reader's, not the full loader's
    for cache in ("0", "1"):  # parsed, then parsed and cached, then read back
        for _ in range(2 if cache == "1" else 1):
            proc = subprocess.run(
                [sys.executable, "-m", "codemode", "check", "--root", str(root), "--all"],
                capture_output=True,
                text=True,
                env={**os.environ, "CODEMODE_SPEC_CACHE": cache},
            )
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert "10 cases: 10 passed" in proc.stdout
