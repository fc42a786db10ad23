"""The behaviour diff of many functions over two processes (#18: a 50-function pull request
in under 10 s on 2 cores).

One process diffing function after function keeps about one core busy: building a pool and
reading replies is Python under one GIL, and the two workers mostly wait for it. With enough
targets, every other one goes to a second process of codemode's own interpreter
(``python -m codemode.behaviour.parallel``), with its own pair of workers; this process diffs
the rest meanwhile. The targets are dealt alternately so both halves get a like mix, and the
results come back in the order given. The second process is told everything it needs (the
config, the targets, the trees, each target's spec inputs) and reads nothing of the parent's
state. When it cannot run, or fails, its share runs here: slower, never lost.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from codemode.config import Config

if TYPE_CHECKING:
    from codemode.behaviour.engine import FunctionDiff
    from codemode.change.diff import ChangedFunction
    from codemode.worker.pool import Worker

# Below this many targets a second process (an interpreter, codemode's imports, two workers:
# ~0.3 s of CPU) costs more than the half of the diff it takes over.
SPLIT_AT = 8
# ``CODEMODE_DIFF_PROCESSES=1``: one process, whatever the core count (a busy CI runner).
_ENV = "CODEMODE_DIFF_PROCESSES"


class Part(NamedTuple):
    """One process's share of a diff: what it needs, and nothing it would have to look up."""

    config: Config
    targets: tuple[ChangedFunction, ...]
    old_root: Path
    new_root: Path
    spec_inputs: tuple[list[tuple[Any, dict[str, Any]]], ...]  # per target
    old_files: bool
    seed: str  # PYTHONHASHSEED of every worker of the diff, in both processes
    # the old side's manifest (change/old_side.py): its worker runs in the work tree and
    # imports the changed modules from ``old_root``; None: ``old_root`` is a whole tree
    old_manifest: Path | None = None


def processes(n_targets: int) -> int:
    """How many processes diff ``n_targets`` functions: 2 with two cores and enough targets."""
    wanted = os.environ.get(_ENV, "").strip()
    if wanted.isdigit():
        return max(1, min(2, int(wanted), n_targets))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return 2 if cores >= 2 and n_targets >= SPLIT_AT else 1


def _deal(part: Part, k: int, of: int) -> Part:
    """Every ``of``-th target from the ``k``-th: a like mix of functions in each share."""
    return part._replace(targets=part.targets[k::of], spec_inputs=part.spec_inputs[k::of])


def run_parts(
    part: Part, old_worker: Worker | None = None, new_worker: Worker | None = None
) -> list[FunctionDiff]:
    """The workers given serve this process's share (``run_part``)."""
    from codemode.behaviour.check_change import run_part

    if processes(len(part.targets)) < 2:
        return run_part(part, old_worker, new_worker)
    mine, theirs = _deal(part, 0, 2), _deal(part, 1, 2)
    other = _start(theirs)
    try:
        got_mine = run_part(mine, old_worker, new_worker)
    except BaseException:
        if other is not None:  # no orphan left diffing for nobody
            other.kill()
            other.wait()
        raise
    got_theirs = _finish(other) if other is not None else None
    if got_theirs is None or len(got_theirs) != len(theirs.targets):
        got_theirs = run_part(theirs)  # it did not run: its share, here
    out: list[FunctionDiff] = []
    for i in range(len(part.targets)):
        out.append(got_mine[i // 2] if i % 2 == 0 else got_theirs[i // 2])
    return out


def _start(part: Part) -> subprocess.Popen[bytes] | None:
    try:
        payload = pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a spec value that does not pickle: diff it here
        return None
    # The parent's own codemode, wherever it was imported from (an install, a checkout).
    package_dir = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_dir, env.get("PYTHONPATH")) if p)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "codemode.behaviour.parallel"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError:
        return None
    assert proc.stdin is not None
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
    except OSError:
        proc.kill()
        proc.wait()
        return None
    return proc


def _finish(proc: subprocess.Popen[bytes]) -> list[FunctionDiff] | None:
    assert proc.stdout is not None
    data = proc.stdout.read()
    proc.stdout.close()
    if proc.wait() != 0:
        return None
    try:
        got = pickle.loads(data)
    except Exception:
        return None
    return got if isinstance(got, list) else None


def _main() -> int:
    """The second process: a pickled ``Part`` on stdin, its pickled diffs on stdout."""
    from codemode.behaviour.check_change import run_part
    from codemode.signals import contain

    contain()  # its workers' parent: as the diff's fork (behaviour.ahead, #33)
    part = pickle.loads(sys.stdin.buffer.read())
    out = run_part(part)
    sys.stdout.buffer.write(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
