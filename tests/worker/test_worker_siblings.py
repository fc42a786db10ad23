"""The worker's own modules (canonical, policy, runner, ...) never shadow the project's
modules of the same name: they are loaded as a private package, not from sys.path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main

SIBLINGS = ("canonical", "clock", "fixtures", "policy", "runner", "tags", "typeexpr", "runtime")


def test_project_modules_named_like_the_workers_are_the_projects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = []
    for name in SIBLINGS:
        (tmp_path / f"{name}.py").write_text(
            f"MARK = 'project {name}'\n\n\ndef where():\n    return MARK\n"
        )
        spec.append(
            f"{name}.where:\n  dataset:\n    - case: {{id: mine, expected: project {name}}}\n"
        )
    # one project module importing another by that plain name, as a flat project does
    (tmp_path / "app.py").write_text(
        "import policy\nimport runner\n\n\ndef both():\n    return [policy.MARK, runner.MARK]\n"
    )
    spec.append(
        "app.both:\n  dataset:\n"
        "    - case: {id: mine, expected: [project policy, project runner]}\n"
    )
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "names.yml").write_text("".join(spec))
    code = main(["check", "--root", str(tmp_path), "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    seen = {
        f["id"]: [(c["status"], c.get("observed")) for c in f["cases"]] for f in report["functions"]
    }
    assert code == 0, seen
    assert len(seen) == len(SIBLINGS) + 1
    assert {f["status"] for f in report["functions"]} == {"ok"}
