"""``codemode diff --format json`` writes its rows by hand; they must equal ``json.dumps``."""

from __future__ import annotations

import json

from codemode.cli.diff_cmd import _row_json, _strs, row
from codemode.diff import ChangedFunction


def test_rows_equal_json_dumps() -> None:
    cases = [
        (
            ChangedFunction(
                "pkg.mod.f",
                "src/pkg/mod.py",
                "modified",
                lineno=3,
                end_lineno=10,
                changed_lines=(4, 5),
                fingerprint="sha256:ab",
            ),
            [],
        ),
        (
            ChangedFunction(
                "pkg.módulo.Ça.ñ",
                'src/pkg/we"ird\\\u2028\x01.py',
                "impacted",
                renamed_from="pkg.old\t",
                impacted_by=("a.b", "c.d"),
                via=("a.b", "pkg.módulo.Ça.ñ"),
            ),
            ["specs/x.yml", "spécs/😀.yml"],
        ),
    ]
    for f, specs in cases:
        assert _row_json(f, specs) == json.dumps(row(f, specs))
        assert _row_json(tuple(f), specs) == _row_json(f, specs)  # a cached row: plain fields
        assert row(f, specs) == {
            **f._asdict(),
            "impacted_by": list(f.impacted_by),
            "via": list(f.via),
            "changed_lines": list(f.changed_lines),
            "specs": specs,
        }
    assert _strs(["a", "é\n"]) == json.dumps(["a", "é\n"])
    assert _strs([]) == json.dumps([])
