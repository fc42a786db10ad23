"""Run a composite action's steps as a GitHub runner does: each `run:` script in its own
`bash --noprofile --norc -eo pipefail` process, `${{ }}` expressions in `env:` and `if:`
evaluated from the inputs (with their defaults), `github.*` and earlier steps' outputs, and the
files a step writes to (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH) read back into what later
steps see. Only the expression forms action.yml uses are understood; anything else fails the
test loudly rather than being guessed."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_TOKEN = re.compile(r"\s*('(?:[^']|'')*'|&&|\|\||==|!=|!|\(|\)|[A-Za-z_][\w.-]*(?:\(\))?|\d+)")
_STATUS = ("success()", "failure()", "always()", "cancelled()")


@dataclass
class StepRun:
    name: str
    returncode: int | None  # None: skipped by its `if:`
    stdout: str = ""
    stderr: str = ""
    outputs: dict[str, str] = field(default_factory=dict)


def _lookup(path: str, ctx: dict[str, Any]) -> Any:
    value: Any = ctx
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return ""
        value = value[part]
    return value


def evaluate(expr: str, ctx: dict[str, Any], failed: bool) -> Any:
    tokens = _TOKEN.findall(expr)
    if "".join(t.strip() for t in tokens) != re.sub(r"\s+", "", expr):
        raise AssertionError(f"expression not understood: {expr!r}")
    out = []
    for t in tokens:
        t = t.strip()
        if t.startswith("'"):
            out.append(repr(t[1:-1].replace("''", "'")))
        elif t in ("&&", "||", "!"):
            out.append({"&&": " and ", "||": " or ", "!": " not "}[t])
        elif t in ("==", "!=", "(", ")") or t.isdigit():
            out.append(t)
        elif t in _STATUS:
            out.append(repr({"success()": not failed, "failure()": failed}.get(t, t == "always()")))
        elif t in ("true", "false"):
            out.append(str(t == "true"))
        else:
            out.append(repr(_lookup(t, ctx)))
    return eval("".join(out), {"__builtins__": {}})  # our own action.yml, in a test


def substitute(text: str, ctx: dict[str, Any]) -> str:
    return _EXPR.sub(lambda m: str(evaluate(m.group(1), ctx, False)), text)


def _read_kv(path: Path) -> dict[str, str]:
    """``name=value`` and ``name<<DELIM`` heredocs, as the runner parses them."""
    out: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, value = line.partition("=")
        out[name] = value
        i += 1
    return out


def run_composite(
    action_dir: Path,
    inputs: dict[str, str],
    env: dict[str, str],
    cwd: Path,
    work: Path,
    token: str = "test-token",
) -> list[StepRun]:
    """The steps of ``action_dir/action.yml``; ``env`` is the job's environment."""
    action = yaml.safe_load((action_dir / "action.yml").read_text())
    defaults = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    given = {k: v for k, v in inputs.items()}
    ctx: dict[str, Any] = {
        "inputs": {**defaults, **given},
        "github": {"action_path": str(action_dir), "token": token},
        "steps": {},
    }
    for k, v in list(ctx["inputs"].items()):
        ctx["inputs"][k] = substitute(v, ctx)  # a default such as ${{ github.token }}
    job_env = dict(env)
    runs: list[StepRun] = []
    failed = False
    for n, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {n}")
        cond = step.get("if")
        if cond is not None:
            text = _EXPR.sub(lambda m: m.group(1), str(cond))
            if not any(s in text for s in _STATUS):
                text = f"success() && ({text})"
            go = bool(evaluate(text, ctx, failed))
        else:
            go = not failed
        if not go:
            runs.append(StepRun(name, None))
            continue
        files = {
            k: work / f"{n}-{k.lower()}" for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH")
        }
        for f in files.values():
            f.write_text("")
        step_env = {**job_env, **{k: str(f) for k, f in files.items()}}
        step_env["RUNNER_TEMP"] = job_env.get("RUNNER_TEMP", str(work))
        for k, v in (step.get("env") or {}).items():
            step_env[k] = substitute(str(v), ctx)
        assert step.get("shell") == "bash", f"{name}: only bash steps are simulated"
        script = work / f"{n}-script.sh"
        script.write_text(step["run"])
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        outputs = _read_kv(files["GITHUB_OUTPUT"])
        if step.get("id"):
            ctx["steps"][step["id"]] = {"outputs": outputs}
        job_env.update(_read_kv(files["GITHUB_ENV"]))
        added = [p for p in files["GITHUB_PATH"].read_text().splitlines() if p]
        if added:
            job_env["PATH"] = ":".join([*reversed(added), job_env.get("PATH", "")])
        runs.append(StepRun(name, proc.returncode, proc.stdout, proc.stderr, outputs))
        failed = failed or proc.returncode != 0
    return runs
