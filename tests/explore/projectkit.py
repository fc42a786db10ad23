"""A project in a temp git repository, regenerated through the real CLI, and its specs read
back: for the tests of the explorer's inputs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import yaml


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.codemode]\nsource_roots = ["src"]\n')
    for rel, text in {"src/pkg/__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def regen(root: Path, *ids: str, python: str | None = None) -> dict[str, object]:
    argv = ["regen", "--root", str(root), "--format", "json"]
    argv += ["--python", python] if python else []
    for fid in ids:
        argv += ["--function", fid]
    out = subprocess.run(
        [str(Path(sys.executable).parent / "codemode"), *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    report: dict[str, object] = json.loads(out.stdout)
    return report


def spec(root: Path, module: str) -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load((root / "specs" / f"{module}.yml").read_text())
    return data


def cases(spec: dict[str, object], fid: str) -> list[dict[str, object]]:
    block = spec[fid]
    assert isinstance(block, dict)
    return [item["case"] for item in block["dataset"]]


def meta(spec: dict[str, object], fid: str) -> dict[str, object]:
    meta = spec["codemode"]
    assert isinstance(meta, dict)
    out: dict[str, object] = meta["functions"][fid]
    return out
