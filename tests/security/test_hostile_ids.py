"""Keys, ids and references from hostile spec files and functions (#21): keys equal once YAML
resolves them are duplicates, case ids with bidi controls are refused and NFC twins are one id,
and a ``GH-123`` in a function's message never becomes a live link in the comment."""

from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path
from types import ModuleType

from security_kit import assert_contained, check, make_project, run_cli

RESOLVED = """
hazards.good.add:
  dataset:
    - case: {id: two, inputs: {1: a, 0x1: b, 1.0: c}, expected: 2}
"""


def test_keys_equal_after_resolution_are_duplicates(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"bad.yml": RESOLVED.replace("good.add", "good.sub")})
    run = check(root)
    assert_contained(run, codes=(1,))
    msgs = [m for m in run.messages() if "duplicate key" in m]
    assert any("'0x1'" in m and "specs/bad.yml:4" in m for m in msgs), run.messages()
    assert any("'1.0'" in m for m in msgs), msgs


def test_a_case_id_with_a_bidi_control_is_refused(tmp_path: Path) -> None:
    spec = 'hazards.good.add:\n  dataset:\n    - case: {id: "ok\u202egnp.exe", inputs: [1, 1], expected: 2}\n'
    root = make_project(tmp_path, specs={"bad.yml": spec.replace("good.add", "good.add")})
    run = check(root)
    assert_contained(run, codes=(1,))
    msg = " ".join(run.messages())
    assert "bidirectional" in msg and "specs/bad.yml:3" in msg, msg
    assert "\u202e" not in run.out


def test_nfc_and_nfd_twins_are_one_id(tmp_path: Path) -> None:
    nfc, nfd = unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café")
    assert nfc != nfd
    spec = (
        "hazards.good.add:\n  dataset:\n"
        f"    - case: {{id: {nfc}, inputs: [1, 1], expected: 2}}\n"
        f"    - case: {{id: {nfd}, inputs: [2, 2], expected: 4}}\n"
    )
    root = make_project(tmp_path, specs={"twins.yml": spec})
    run = check(root)
    assert_contained(run, codes=(1,))
    msgs = [m for m in run.messages() if "duplicate case id" in m]
    assert msgs and msgs[0].startswith("specs/twins.yml:4"), run.messages()


REFS = """
raise ImportError("see GH-123 and gh-7 and #12")
"""
REF_SPEC = """
hazards.refs.refs:
  dataset:
    - case: {id: GH-9, input: 1, expected: 1}
"""


def test_gh_references_are_dead_in_the_job_summary(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"refs.yml": REF_SPEC}, modules={"refs": REFS})
    run = check(root)
    assert_contained(run, codes=(1,))
    report = tmp_path / "report.json"
    report.write_text(run.out)
    summary = tmp_path / "summary.md"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_TOKEN": ""}
    run_cli(root, "comment", "--report", str(report), "--fail-on", "none", env=env)
    text = summary.read_text()
    assert "GH-123" in text.replace("\u200b", ""), text
    assert _inert().live_parts(text) == []


def _inert() -> ModuleType:
    """tests/github/inert.py: GitHub's own Markdown (cmarkgfm), walked for what would be live."""
    path = Path(__file__).parents[1] / "github" / "inert.py"
    spec = importlib.util.spec_from_file_location("inert", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
