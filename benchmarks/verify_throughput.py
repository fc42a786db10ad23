"""How fast is ``codemode check`` against vowel 0.4.0's own runner and against pytest? (#2, #20)

Builds a project with eight realistic pure functions (prices, slugs, roman numerals, dates,
statistics...) and one spec file of 2,000 cases that mixes the keys both runners support:
``expected``, ``raises`` (with ``match``), ``type`` and ``assertion`` evaluators, and
case-level ``assertion``. Twenty cases are wrong on purpose, so that agreeing on the pass/fail
counts means something. The same cases are also written as a pytest file, one test per
function parametrized over its cases (``pytest.raises(match=...)``, ``isinstance`` for
``type:``, the assertion expressions as plain ``assert``s). Then, in one run, it times end to
end (a fresh process each time, wall clock, median of a few runs):

- ``codemode check <spec>`` (the default text report; also ``--format json``), the worker
  running the same interpreter, with its default ``--jobs`` (the cores available);
- ``vowel <spec> --ci --hide-report`` from vowel 0.4.0 (its leanest output: the summary only),
  installed into its own venv under benchmarks/.work/ (``python -m venv`` + ``pip install
  vowel==0.4.0``) unless one exists (``--vowel`` or /tmp/vowelenv); and ``vowel <spec>
  --no-color -q``, which renders the report of the failures (about twice vowel's time);
- ``python -m pytest -q`` on the parametrized file, with this interpreter's pytest and no
  plugin auto-loading (the leanest pytest a project could run; PYTEST_DISABLE_PLUGIN_AUTOLOAD).

and prints the wall times, the ratios, and whether the three runners count the same passed and
failed cases. The project is a git repository, as a user's is: codemode's first run parses the
spec file and keeps the records in the git directory's cache, and the runs after read them
back (as pytest reuses its rewritten test module from ``__pycache__``); the same runs without
that cache (``CODEMODE_SPEC_CACHE=0``, as on a fresh CI checkout) are printed with their own
ratios. A second spec of as many cases, all passing, is timed with codemode and ``vowel --ci
--hide-report`` too: the headline ratio (#36), a failing file's ratio printed beside it.
Targets (#20, #36): codemode at least 25x faster than vowel (``--ci --hide-report``, all
passing), 15x without the spec cache, and 10x faster than pytest. Run: ``python benchmarks/verify_throughput.py [--cases 2000] [--runs 5]
[--vowel-runs 3] [--pytest-runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import _common

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "verify_throughput"
VOWEL_VERSION = "0.4.0"

MODULE = '''\
"""Pure functions of a small shop: the benchmark's targets."""

from __future__ import annotations


def parse_price(text: str) -> int:
    """'12.50' -> 1250 cents; raises ValueError on anything else."""
    whole, _, frac = text.strip().partition(".")
    if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > 2:
        raise ValueError(f"not a price: {text!r}")
    return int(whole) * 100 + int((frac + "00")[:2])


def slugify(title: str) -> str:
    out, dash = [], False
    for ch in title.lower():
        if ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash and out:
            out.append("-")
            dash = True
    return "".join(out).strip("-")


_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def roman(n: int) -> str:
    if not 0 < n < 4000:
        raise ValueError(f"out of range: {n}")
    out = []
    for value, numeral in _ROMAN:
        count, n = divmod(n, value)
        out.append(numeral * count)
    return "".join(out)


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def median(values: list[float]) -> float:
    if not values:
        raise ValueError("median of nothing")
    s = sorted(values)
    mid = len(s) // 2
    return float(s[mid]) if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def clamp(x: int, lo: int, hi: int) -> int:
    if lo > hi:
        raise ValueError(f"empty range [{lo}, {hi}]")
    return max(lo, min(x, hi))


def word_lengths(text: str) -> list[int]:
    return [len(w) for w in text.split()]


def split_cents(total: int, people: int) -> list[int]:
    if people <= 0:
        raise ZeroDivisionError("nobody to split with")
    base, extra = divmod(total, people)
    return [base + (1 if i < extra else 0) for i in range(people)]
'''

WORDS = ["tea", "mug", "pot", "cup", "kettle", "lemon", "honey", "spoon", "tray", "leaf"]


def _roman(n: int) -> str:
    table = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ]
    out = ""
    for value, numeral in table:
        count, n = divmod(n, value)
        out += numeral * count
    return out


def _case(fields: dict[str, object]) -> str:
    return "    - case: " + json.dumps(fields, ensure_ascii=False)  # JSON is YAML flow style


def build_spec(n_cases: int, n_wrong: int) -> tuple[str, int]:
    """The spec text, and how many of its cases must fail."""
    per = n_cases // 8
    blocks: dict[str, tuple[str, list[str]]] = {}
    wrong = 0

    def bad(i: int) -> bool:
        """Every 50th case (from the 8th) is wrong, until n_wrong are."""
        nonlocal wrong
        if i % 50 == 7 and wrong < n_wrong:
            wrong += 1
            return True
        return False

    cases = []
    for i in range(per):
        if i % 10 == 9:
            cases.append(
                _case(
                    {
                        "id": f"bad_{i}",
                        "input": f"{i}.x{i}",
                        "raises": "ValueError",
                        "match": "not a price",
                    }
                )
            )
        else:
            cents = i * 37 + i % 100
            exp = cents + (1 if bad(i) else 0)
            cases.append(
                _case(
                    {"id": f"p{i}", "input": f"{cents // 100}.{cents % 100:02d}", "expected": exp}
                )
            )
    blocks["parse_price"] = (
        '    IsInt: {type: int}\n    NonNegative: {assertion: "output >= 0"}\n',
        cases,
    )

    cases = []
    for i in range(per):
        words = [WORDS[(i + k) % 10] for k in range(1 + i % 4)]
        title = " ".join(w.capitalize() for w in words) + f" No. {i}!"
        exp = "-".join(words) + f"-no-{i}"
        if bad(i):
            exp += "-x"
        cases.append(_case({"id": f"s{i}", "input": title, "expected": exp}))
    blocks["slugify"] = (
        '    IsStr: {type: str}\n    Lower: {assertion: "output == output.lower()"}\n',
        cases,
    )

    cases = []
    for i in range(per):
        n = 1 + (i * 13) % 3999
        if i % 25 == 24:
            cases.append(
                _case(
                    {
                        "id": f"r{i}",
                        "input": 4000 + i,
                        "raises": "ValueError",
                        "match": "out of range",
                    }
                )
            )
        else:
            exp = _roman(n) + ("I" if bad(i) else "")
            cases.append(_case({"id": f"r{i}", "input": n, "expected": exp}))
    blocks["roman"] = ("    IsStr: {type: str}\n", cases)

    cases = []
    for i in range(per):
        year = 1600 + i * 3
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        cases.append(_case({"id": f"y{year}", "input": year, "expected": leap != bad(i)}))
    blocks["is_leap"] = ("    IsBool: {type: bool}\n", cases)

    cases = []
    for i in range(per):
        if i == 19:  # vowel keeps one case per distinct input: one empty list only
            cases.append(_case({"id": f"m{i}", "input": [], "raises": "ValueError"}))
            continue
        values = [float((i * k) % 97) for k in range(1, 2 + i % 6)] + [float(i)]
        s = sorted(values)
        mid = len(s) // 2
        exp = s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
        cases.append(
            _case(
                {
                    "id": f"m{i}",
                    "input": values,
                    "expected": exp + (1 if bad(i) else 0),
                    "assertion": "min(input) <= output <= max(input)",
                }
            )
        )
    blocks["median"] = ("    IsFloat: {type: float}\n", cases)

    cases = []
    for i in range(per):
        lo, hi = i % 50, 50 + i % 50
        x = (i * 7) % 130 - 10
        if i % 30 == 29:
            cases.append(
                _case(
                    {
                        "id": f"c{i}",
                        "inputs": [x, hi, lo - 1],
                        "raises": "ValueError",
                        "match": "empty range",
                    }
                )
            )
        else:
            exp = max(lo, min(x, hi)) + (1 if bad(i) else 0)
            cases.append(
                _case({"id": f"c{i}", "inputs": {"x": x, "lo": lo, "hi": hi}, "expected": exp})
            )
    blocks["clamp"] = ("    IsInt: {type: int}\n", cases)

    cases = []
    for i in range(per):
        words = [WORDS[(i * k) % 10] * (1 + k % 2) for k in range(1, 2 + i % 5)] + [str(i)]
        exp = [len(w) for w in words]
        if bad(i):
            exp = [*exp, 0]
        cases.append(_case({"id": f"w{i}", "input": " ".join(words), "expected": exp}))
    blocks["word_lengths"] = ('    ListOfInt: {type: "list[int]"}\n', cases)

    cases = []
    rest = n_cases - 7 * per
    for i in range(rest):
        total, people = 100 + i * 11, 1 + i % 7
        if i % 40 == 39:
            cases.append(
                _case({"id": f"z{i}", "inputs": [total, 0], "raises": "ZeroDivisionError"})
            )
            continue
        base, extra = divmod(total, people)
        exp = [base + (1 if k < extra else 0) for k in range(people)]
        if bad(i):
            exp[0] += 1
        cases.append(_case({"id": f"t{i}", "inputs": [total, people], "expected": exp}))
    blocks["split_cents"] = ('    AddsUp: {assertion: "sum(output) == input[0]"}\n', cases)

    parts = ["# Generated by benchmarks/verify_throughput.py: 2,000 cases over pure functions.\n"]
    for name, (evals, cs) in blocks.items():
        parts.append(f"bench_pure.{name}:\n  evals:\n{evals}  dataset:\n" + "\n".join(cs) + "\n\n")
    return "".join(parts), wrong


def build_project(n_cases: int, n_wrong: int, name: str = "project") -> tuple[Path, Path, int]:
    project = WORK / name
    if project.exists():
        shutil.rmtree(project)
    (project / "specs").mkdir(parents=True)
    (WORK / ".gitignore").write_text("*\n")
    (project / "bench_pure.py").write_text(MODULE, encoding="utf-8")
    (project / "pyproject.toml").write_text(
        '[project]\nname = "bench-pure"\nversion = "0"\n\n[tool.codemode]\nspecs = ["specs/*.yml"]\n'
    )
    text, wrong = build_spec(n_cases, n_wrong)
    spec = project / "specs" / "bench.yml"
    spec.write_text(text, encoding="utf-8")
    (project / "test_bench.py").write_text(build_pytest(text), encoding="utf-8")
    # A project is a repository: codemode keeps its caches in the git directory (the parsed
    # spec files among them), as pytest keeps its rewritten test modules in __pycache__.
    subprocess.run(["git", "init", "-q"], cwd=project, check=True, capture_output=True)
    return project, spec, wrong


_TYPES = {"int": "int", "str": "str", "bool": "bool", "float": "float"}


def _type_check(expr: str) -> str:
    """A ``type:`` evaluator as the Python check a pytest author writes (bool is not an int)."""
    if expr.startswith("list[") and expr.endswith("]"):
        inner = _type_check(expr[5:-1]).replace("output", "x")
        return f"isinstance(output, list) and all({inner} for x in output)"
    name = _TYPES[expr]
    if name == "int":
        return "isinstance(output, int) and not isinstance(output, bool)"
    return f"isinstance(output, {name})"


def build_pytest(spec_text: str) -> str:
    """The spec's cases as a pytest module: one parametrized test per function."""
    import yaml

    data = yaml.safe_load(spec_text)
    out = [
        '"""Generated by benchmarks/verify_throughput.py: the spec\'s cases as pytest tests."""',
        "import builtins",
        "import math",
        "",
        "import pytest",
        "",
        "import bench_pure",
        "",
    ]
    for target, block in data.items():
        name = target.rsplit(".", 1)[1]
        checks = []
        for ev in (block.get("evals") or {}).values():
            checks.append(_type_check(ev["type"]) if "type" in ev else ev["assertion"])
        cases = [c["case"] for c in block["dataset"]]
        out += [
            f"CASES_{name.upper()} = {cases!r}",
            "",
            "",
            f"@pytest.mark.parametrize('case', CASES_{name.upper()}, ids=lambda c: c['id'])",
            f"def test_{name}(case):",
            "    args = case.get('inputs', [case.get('input')])",
            f"    call = (lambda: bench_pure.{name}(**args)) if isinstance(args, dict) else "
            f"(lambda: bench_pure.{name}(*args))",
            "    if 'raises' in case:",
            "        with pytest.raises(getattr(builtins, case['raises']), "
            "match=case.get('match')):",
            "            call()",
            "        return",
            "    output = call()",
            "    input, expected = case.get('input', args), case['expected']",
            "    if isinstance(expected, float):",
            "        assert math.isclose(output, expected, rel_tol=1e-9)",
            "    else:",
            "        assert output == expected",
            *(f"    assert {c}" for c in checks),
            "    if 'assertion' in case:",
            "        assert eval(case['assertion'])",
            "",
            "",
        ]
    return "\n".join(out)


def pytest_counts(out: str) -> tuple[int, int]:
    """From pytest's last line: ``20 failed, 1980 passed in 3.21s``."""
    passed = re.search(r"(\d+) passed", out)
    failed = re.search(r"(\d+) failed", out)
    if not passed:
        raise SystemExit("cannot read pytest's summary:\n" + out[-1500:])
    return int(passed.group(1)), int(failed.group(1)) if failed else 0


def find_vowel(explicit: str | None) -> Path:
    """vowel's CLI in a venv of its own (never in codemode's environment)."""
    candidates = [Path(explicit)] if explicit else []
    candidates += [WORK / "vowel-venv" / "bin" / "vowel", Path("/tmp/vowelenv/bin/vowel")]
    for c in candidates:
        if c.exists() and _vowel_version(c) == VOWEL_VERSION:
            return c
    venv = WORK / "vowel-venv"
    print(f"installing vowel=={VOWEL_VERSION} into {venv} ...", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"vowel=={VOWEL_VERSION}"],
        check=True,
    )
    return venv / "bin" / "vowel"


def _vowel_version(cli: Path) -> str | None:
    python = cli.parent / "python"
    proc = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('vowel'))"],
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def _env(**extra: str) -> dict[str, str]:
    env = _common.user_env()
    env["LOGFIRE_IGNORE_NO_CONFIG"] = "1"
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def time_runs(
    cmd: Sequence[str], cwd: Path, runs: int, env: dict[str, str] | None = None
) -> tuple[list[float], str]:
    times, out = [], ""
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, env=env or _env())
        times.append(time.perf_counter() - t0)
        out = proc.stdout
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{cmd[0]} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return times, out


def codemode_counts(out: str) -> tuple[int, int]:
    """From the summary line: ``codemode: 8 functions: ...; 2000 cases: 1980 passed, 20 drifted``."""
    m = re.search(r"(\d+) cases?: ([^(]*)", out)
    if not m:
        raise SystemExit("cannot read codemode's summary:\n" + out[-1500:])
    counts = dict((k, int(n)) for n, k in re.findall(r"(\d+) (\w+)", m.group(2)))
    passed = counts.get("passed", 0)
    return passed, int(m.group(1)) - passed


def codemode_json_counts(out: str) -> tuple[int, int]:
    report = json.loads(out)
    statuses = [c["status"] for f in report["functions"] for c in f["cases"]]
    return statuses.count("passed"), len(statuses) - statuses.count("passed")


def vowel_counts(out: str) -> tuple[int, int]:
    text = re.sub(r"\x1b\[[0-9;]*m", "", out)
    passed = re.search(r"Passed Cases\s+(\d+)", text)
    failed = re.search(r"Failed Cases\s+(\d+)", text)
    if not (passed and failed):
        raise SystemExit("cannot read vowel's summary:\n" + text[-1500:])
    return int(passed.group(1)), int(failed.group(1))


def pytest_command(project: Path) -> list[str]:
    """This interpreter's pytest on the parametrized file; a missing pytest fails loudly."""
    probe = subprocess.run(
        [sys.executable, "-c", "import pytest; print(pytest.__version__)"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        raise SystemExit(f"pytest is not installed in {sys.executable}: no comparison")
    print(f"pytest {probe.stdout.strip()} (plugins not auto-loaded)")
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_bench.py"]


def _times(name: str, times: list[float], counts: tuple[int, int]) -> str:
    listed = ", ".join(f"{t:.3f}" for t in times)
    return (
        f"{name}: {statistics.median(times):.3f} s wall (median of {len(times)}: {listed}); "
        f"passed {counts[0]}, failed {counts[1]}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=2000)
    p.add_argument("--wrong", type=int, default=20, help="cases that must fail")
    p.add_argument("--runs", type=int, default=5, help="codemode runs (median)")
    p.add_argument("--vowel-runs", type=int, default=3, help="vowel runs (median)")
    p.add_argument("--pytest-runs", type=int, default=3, help="pytest runs (median)")
    p.add_argument("--vowel", help="path of a vowel 0.4.0 CLI to use")
    a = p.parse_args(argv)
    project, spec, wrong = build_project(a.cases, a.wrong)
    passing, passing_spec, _ = build_project(a.cases, 0, "passing")
    vowel = find_vowel(a.vowel)
    pytest = pytest_command(project)
    print(
        f"spec: {spec.relative_to(HERE.parent)} ({a.cases} cases over 8 functions, "
        f"{wrong} wrong on purpose); {passing_spec.relative_to(HERE.parent)} (all passing)"
    )
    load1 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"machine: {len(os.sched_getaffinity(0))} cores, load average {load1:.2f} before the "
        f"runs; Python {sys.version.split()[0]}"
    )
    t = _timed_all(a, project, spec, passing, passing_spec, vowel, pytest)
    return _report(t)


def _codemode(project: Path, spec: Path) -> list[str]:
    root = ["--root", str(project), str(spec), "--python", sys.executable]
    return [sys.executable, "-m", "codemode", "check", *root]


def _timed_all(
    a: argparse.Namespace,
    project: Path,
    spec: Path,
    passing: Path,
    passing_spec: Path,
    vowel: Path,
    pytest: list[str],
) -> dict[str, tuple[list[float], str]]:
    """Every command's times and last output, by name. The first codemode run of a file
    parses it and caches it; the runs after read it back. Without the cache
    (CODEMODE_SPEC_CACHE=0) every run parses, as on a fresh CI checkout."""
    no_cache = _env(CODEMODE_SPEC_CACHE="0")
    cm, cm_pass = _codemode(project, spec), _codemode(passing, passing_spec)
    ci = ["--ci", "--hide-report"]
    t = {
        "first": time_runs(cm, project, 1),
        "cold": time_runs(cm, project, a.runs, no_cache),
        "cm": time_runs(cm, project, a.runs),
        "json": time_runs([*cm, "--format", "json"], project, a.runs),
        "pass_first": time_runs(cm_pass, passing, 1),
        "pass_cold": time_runs(cm_pass, passing, a.runs, no_cache),
        "pass": time_runs(cm_pass, passing, a.runs),
        "vowel_q": time_runs([str(vowel), str(spec), "--no-color", "-q"], project, a.vowel_runs),
        "vowel_ci": time_runs([str(vowel), str(spec), *ci], project, a.vowel_runs),
        "vowel_pass": time_runs([str(vowel), str(passing_spec), *ci], passing, a.vowel_runs),
        "pytest": time_runs(
            pytest, project, a.pytest_runs, _env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        ),
    }
    return t


def _report(t: dict[str, tuple[list[float], str]]) -> int:
    med = {k: statistics.median(v[0]) for k, v in t.items()}
    cm_counts = codemode_counts(t["cm"][1])
    pass_counts = codemode_counts(t["pass"][1])
    if codemode_json_counts(t["json"][1]) != cm_counts:
        raise SystemExit("codemode's text and JSON reports disagree")
    if (
        codemode_counts(t["cold"][1]) != cm_counts
        or codemode_counts(t["pass_cold"][1]) != pass_counts
    ):
        raise SystemExit("codemode's reports with and without the spec cache disagree")
    vw_counts, pt_counts = vowel_counts(t["vowel_q"][1]), pytest_counts(t["pytest"][1])
    vw_pass = vowel_counts(t["vowel_pass"][1])
    print(f"codemode check, first run (parses the spec, caches it): {med['first']:.3f} s wall")
    print(_times("codemode check, no spec cache (every run parses)", t["cold"][0], cm_counts))
    print(_times("codemode check", t["cm"][0], cm_counts))
    print(
        f"codemode check --format json: {med['json']:.3f} s wall "
        f"(median of {len(t['json'][0])}; the report of every case as JSON)"
    )
    print(_times("codemode check, all passing", t["pass"][0], pass_counts))
    print(_times("codemode check, all passing, no spec cache", t["pass_cold"][0], pass_counts))
    print(_times(f"vowel {VOWEL_VERSION} --no-color -q", t["vowel_q"][0], vw_counts))
    print(_times(f"vowel {VOWEL_VERSION} --ci --hide-report", t["vowel_ci"][0], vw_counts))
    print(
        _times(
            f"vowel {VOWEL_VERSION} --ci --hide-report, all passing", t["vowel_pass"][0], vw_pass
        )
    )
    print(_times("pytest (parametrized)", t["pytest"][0], pt_counts))
    agree = cm_counts == vw_counts == pt_counts and pass_counts == vw_pass
    headline = med["vowel_pass"] / med["pass"]
    no_cache = med["vowel_pass"] / med["pass_cold"]
    print(
        f"ratio, all passing (vowel --ci --hide-report): codemode is {headline:.1f}x faster; "
        f"{no_cache:.1f}x without the spec cache"
    )
    print(
        f"ratio, {cm_counts[1]} failing: {med['vowel_ci'] / med['cm']:.1f}x vowel --ci "
        f"--hide-report, {med['vowel_q'] / med['cm']:.1f}x vowel --no-color -q (its report "
        f"rendered); {med['pytest'] / med['cm']:.1f}x pytest; without the spec cache "
        f"{med['vowel_ci'] / med['cold']:.1f}x vowel --ci, {med['pytest'] / med['cold']:.1f}x pytest"
    )
    print(f"agreement on pass/fail counts: {'yes' if agree else 'NO'}")
    targets = (
        (">= 25x vowel, all passing", headline >= 25),
        (">= 15x vowel without the spec cache", no_cache >= 15),
        (">= 10x pytest", med["pytest"] / med["cm"] >= 10),
    )
    print("targets: " + "; ".join(f"{n}: {'met' if ok else 'MISSED'}" for n, ok in targets))
    return 0 if all(ok for _, ok in targets) and agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
