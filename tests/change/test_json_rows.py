"""``codemode diff --format json`` writes its rows by hand; they must equal ``json.dumps``."""

from __future__ import annotations

import json

from codemode.change.diff import ChangedFunction
from codemode.change.listing import json_strs, row, row_json


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
        assert row_json(f, specs) == json.dumps(row(f, specs))
        assert row_json(tuple(f), specs) == row_json(f, specs)  # a cached row: plain fields
        assert row(f, specs) == {
            **f._asdict(),
            "impacted_by": list(f.impacted_by),
            "via": list(f.via),
            "changed_lines": list(f.changed_lines),
            "specs": specs,
        }
    assert json_strs(["a", "é\n"]) == json.dumps(["a", "é\n"])
    assert json_strs([]) == json.dumps([])


def test_cold_and_warm_json_are_identical(repo, capsys, monkeypatch):
    """The second run renders rows from the cache and looks the specs up again."""
    from codemode.cli.main import main

    repo.write("src/pkg/__init__.py", "")
    repo.write(
        "src/pkg/a.py",
        "def helper(x):\n    return x + 1\n\n\ndef caller(x):\n    return helper(x)\n",
    )
    base = repo.commit()
    repo.write(
        "src/pkg/a.py",
        "def helper(x):\n    return x + 2\n\n\ndef caller(x):\n    return helper(x)\n",
    )
    repo.commit()
    args = ["diff", "--base", base, "--format", "json", "--root", str(repo.root)]
    outputs = []
    for _ in range(2):
        assert main(args) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    rows = json.loads(outputs[0])["functions"]
    assert [(r["id"], r["status"], r["specs"]) for r in rows] == [
        ("pkg.a.caller", "impacted", []),
        ("pkg.a.helper", "modified", []),
    ]
    # a spec file appears: the cached rows get the new specs column
    repo.write(
        "specs/a.yml", "pkg.a.helper:\n  cases:\n    - id: one\n      args: [1]\n      expect: 3\n"
    )
    assert main(args) == 0
    rows = json.loads(capsys.readouterr().out)["functions"]
    assert rows[1]["id"] == "pkg.a.helper" and rows[1]["specs"] == ["specs/a.yml"]


def test_a_kept_document_follows_the_tests_flag_and_the_spec_files(repo, capsys):
    """Without spec files a repeat writes the document the last run kept: one per --tests,
    and none once a spec file exists (its column comes from the specs, looked up afresh)."""
    from codemode.change.listing import json_document
    from codemode.cli.main import main

    repo.write("src/pkg/a.py", "def helper(x):\n    return x + 1\n")
    repo.write("tests/test_a.py", "from pkg.a import helper\n\n\ndef test_h():\n    helper(1)\n")
    base = repo.commit()
    repo.write("src/pkg/a.py", "def helper(x):\n    return x + 2\n")
    repo.commit()
    args = ["diff", "--base", base, "--format", "json", "--root", str(repo.root)]

    def run(*extra: str) -> str:
        assert main([*args, *extra]) == 0
        return capsys.readouterr().out

    plain, with_tests = run(), run("--tests")
    assert "tests" not in json.loads(plain) and json.loads(with_tests)["tests"]
    assert [run(), run("--tests"), run()] == [plain, with_tests, plain]
    repo.write("specs/a.yml", "pkg.a.helper:\n  dataset:\n    - case: {input: 1, expected: 3}\n")
    assert json.loads(run())["functions"][0]["specs"] == ["specs/a.yml"]
    (repo.root / "specs" / "a.yml").unlink()
    assert run() == plain
    # the one-join rendering without specs is the per-row one with empty specs
    rows = (("a", "b"), (False, True), ('{"id": "a"', '{"id": "b"'), (), {})
    for tests in (False, True):
        assert json_document(rows, None, tests) == json_document(rows, lambda _i: [], tests)
