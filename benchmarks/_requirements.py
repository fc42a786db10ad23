"""The runtime requirements a release declares, and an interpreter that has them, for
benchmarks/upgrade_detection.py: a release that needs ``six`` runs in a virtual environment
that has it, instead of being excluded as a release "that cannot be imported here".

The requirements come from the release's own metadata, as pip would read them: the sdist's
``PKG-INFO`` (``Requires-Dist``), else its ``*.egg-info/requires.txt`` (setuptools writes
the requirements there, and older releases leave them out of PKG-INFO). Extras are left out;
environment markers are evaluated for this interpreter. No library is named here."""

from __future__ import annotations

import email.parser
import hashlib
import subprocess
import sys
import venv
from pathlib import Path

from _releases import CACHE, BenchError
from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement


def _declared(sdist: Path) -> list[str]:
    info = sdist / "PKG-INFO"
    if info.is_file():
        meta = email.parser.Parser().parsestr(info.read_text(encoding="utf-8", errors="replace"))
        found = meta.get_all("Requires-Dist") or []
        if found:
            return [str(r) for r in found]
    for requires in sorted(sdist.glob("*.egg-info/requires.txt")) + sorted(
        sdist.glob("src/*.egg-info/requires.txt")
    ):
        return _requires_txt(requires.read_text(encoding="utf-8", errors="replace"))
    return []


def _requires_txt(text: str) -> list[str]:
    """setuptools' requires.txt: the requirements, then ``[extra]`` or ``[:marker]``
    sections (``[extra:marker]`` too); only the unnamed ones apply."""
    out: list[str] = []
    marker: str | None = ""  # None: inside an extra's section
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("[") and line.endswith("]"):
            extra, _, cond = line[1:-1].partition(":")
            marker = None if extra else cond
        elif line and not line.startswith("#") and marker is not None:
            out.append(f"{line}; {marker}" if marker else line)
    return list(dict.fromkeys(out))


def requirements(sdist: Path) -> list[Requirement]:
    """What the release needs at run time here: its declared requirements whose marker holds
    for this interpreter, without extras' own."""
    env = {**default_environment(), "extra": ""}
    out = []
    for text in _declared(sdist):
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is None or req.marker.evaluate(env):
            out.append(req)
    return out


def interpreter(old: Path, new: Path) -> str:
    """``sys.executable`` when neither release needs anything; else the Python of a virtual
    environment (cached, by its requirements) holding the new release's requirements and
    those of the old one the new release does not name: one interpreter runs both sides, as
    a project's CI runs both versions of a pull request in the environment it installed."""
    new_reqs = requirements(new)
    named = {r.name.lower() for r in new_reqs}
    reqs = [*new_reqs, *(r for r in requirements(old) if r.name.lower() not in named)]
    if not reqs:
        return sys.executable
    texts = sorted(str(r) for r in reqs)
    key = hashlib.sha256("\n".join([sys.version, *texts]).encode()).hexdigest()[:16]
    folder = CACHE / "dependency-venvs" / key
    python = folder / "bin" / "python"
    if (folder / "ready").is_file():
        return str(python)
    venv.create(folder, with_pip=True, clear=True)
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *texts],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        raise BenchError(f"pip install {' '.join(texts)} failed: {proc.stderr.strip()[-500:]}")
    (folder / "ready").write_text("\n".join(texts) + "\n", encoding="utf-8")
    return str(python)
