"""A pull request's own ``[tool.codemode]`` is hostile input too (#21): a value that is not a
finite, sane number, or a spec glob that reaches outside the repository, is a configuration
error naming pyproject.toml and its line (exit 2), never a crash (exit 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from security_kit import check, make_project

BAD_VALUES = [
    ("timeout = inf", "timeout"),
    ("timeout = nan", "timeout"),
    ("timeout = 1e308", "timeout"),
    ("memory_limit_mb = 100000000000000000000", "memory_limit_mb"),
    ("float_tolerance = nan", "float_tolerance"),
    ("float_abs_tolerance = inf", "float_abs_tolerance"),
    ("max_cost = -inf", "max_cost"),
    ("max_seconds = inf", "max_seconds"),
    ("concurrency = 1000000000", "concurrency"),
    ("impact_depth = -1", "impact_depth"),
    ('specs = ["/etc/*.yml"]', "specs"),
    ('specs = ["specs/../../other/*.yml"]', "specs"),
    ('specs = ["../*.yml"]', "specs"),
]


@pytest.mark.parametrize(("line", "key"), BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_a_hostile_config_value_is_a_configuration_error(
    tmp_path: Path, line: str, key: str
) -> None:
    root = make_project(tmp_path)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    # Replace the key if the hazards project sets it, else add it to [tool.codemode].
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{key} =")]
    at = lines.index("[tool.codemode]") + 1
    lines.insert(at, line)
    pyproject.write_text("\n".join(lines) + "\n")
    want_line = at + 1
    run = check(root)
    assert run.code == 2, (run.code, run.err[-2000:])
    assert "Traceback" not in run.err, run.err[-2000:]
    assert f"pyproject.toml:{want_line}:" in run.err, run.err
    assert key in run.err, run.err


def test_sane_values_still_load(tmp_path: Path) -> None:
    root = make_project(tmp_path, config="")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace("timeout = 1.5", "timeout = 2\nfloat_abs_tolerance = 0")
    )
    run = check(root)
    assert run.code == 0, run.err
