"""benchmarks/guard.py fails loudly when a side cannot run: a comparison with a missing side
must never read as "no slowdown"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GUARD = Path(__file__).resolve().parents[2] / "benchmarks" / "guard.py"


def test_a_ref_that_does_not_exist_exits_2_with_the_reason(tmp_path: Path) -> None:
    env = {**os.environ, "CODEMODE_BENCH_CACHE": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, str(GUARD), "--against", "no-such-ref-for-the-guard"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "a side cannot run" in proc.stderr
    assert "no-such-ref-for-the-guard" in proc.stderr
    assert not list(tmp_path.glob("guard-*"))  # its scratch folder is gone
