"""``codemode diff --format json`` writes its rows by hand; they must equal ``json.dumps``."""

from __future__ import annotations

import json
from typing import Any

from codemode.cli.diff_cmd import _row_json, _strs


def test_rows_equal_json_dumps() -> None:
    rows: list[dict[str, Any]] = [
        {
            "id": "pkg.mod.f",
            "path": "src/pkg/mod.py",
            "status": "modified",
            "renamed_from": None,
            "impacted_by": [],
            "via": [],
            "lineno": 3,
            "end_lineno": 10,
            "changed_lines": [4, 5],
            "fingerprint": "sha256:ab",
            "specs": [],
        },
        {
            "id": "pkg.módulo.Ça.ñ",
            "path": 'src/pkg/we"ird\\\u2028\x01.py',
            "status": "impacted",
            "renamed_from": "pkg.old\t",
            "impacted_by": ["a.b", "c.d"],
            "via": ["a.b", "pkg.módulo.Ça.ñ"],
            "lineno": None,
            "end_lineno": None,
            "changed_lines": [],
            "fingerprint": None,
            "specs": ["specs/x.yml", "spécs/😀.yml"],
        },
    ]
    for row in rows:
        assert _row_json(row) == json.dumps(row)
    assert _strs(["a", "é\n"]) == json.dumps(["a", "é\n"])
    assert _strs([]) == json.dumps([])
