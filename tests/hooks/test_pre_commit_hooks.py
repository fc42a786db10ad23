"""The hooks as users meet them: `git commit` after `pre-commit install`, `pre-commit run`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hookkit import PRICING, REPO_ROOT, Project

# end to end: seconds each (deselect with -m "not slow")
pytestmark = pytest.mark.slow

# Halving the discount: case c00 (100.0, 0.1) now gives 95.0 where the spec says 90.0.
DRIFTED = PRICING.replace("price * (1 - rate)", "price * (1 - rate / 2)")
# The same behaviour written differently: the spec still holds.
REFACTORED = PRICING.replace(
    "    return round(price * (1 - rate), 2)",
    "    discounted = price * (1 - rate)\n    return round(discounted, 2)",
)
# A staged spec edit that no longer holds: 10.0 at half price is 5.0.
WRONG_SPEC = (
    "shop.pricing.apply_discount:\n  dataset:\n"
    "    - case: {id: wrong, inputs: [10.0, 0.5], expected: 6.0}\n"
)
assert DRIFTED != PRICING and REFACTORED != PRICING


def test_manifest_is_accepted_by_pre_commit() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hooks = {h["id"]: h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    check, regen = hooks["codemode-check"], hooks["codemode-regen"]
    assert check["entry"] == "codemode check --staged"
    assert check["stages"] == ["pre-commit", "pre-push", "manual"]
    assert regen["stages"] == ["manual"]  # opt-in: never runs on a plain `git commit`
    for hook in (check, regen):
        assert (hook["language"], hook["pass_filenames"], hook["require_serial"]) == (
            "python",
            False,
            True,
        )


def test_drifting_commit_is_blocked_with_a_readable_message(project: Project) -> None:
    before = project.head()
    project.write("src/shop/pricing.py", DRIFTED)
    project.git("add", "src/shop/pricing.py")

    out = project.commit("halve the discount")

    assert out.returncode != 0
    assert project.head() == before
    assert "codemode check" in out.output and "Failed" in out.output
    # file:line: of the drifted case, expected vs observed, and how to accept it.
    assert "specs/pricing.yml:3: shop.pricing.apply_discount[c00]: drifted" in out.output
    assert "expected 90.0, observed 95.0" in out.output
    assert "codemode accept" in out.output
    assert "\x1b[" not in out.output  # NO_COLOR is set and the output is not a terminal


@pytest.mark.parametrize("no_color", [False, True])
def test_colour_follows_the_terminal_pre_commit_gives_the_hook(
    project: Project, no_color: bool
) -> None:
    """pre-commit runs a hook in a pseudo-terminal when it colours its own output."""
    project.write("src/shop/pricing.py", DRIFTED)
    project.git("add", "src/shop/pricing.py")
    env = {"NO_COLOR": "1" if no_color else ""}

    out = project.run(
        sys.executable, "-m", "pre_commit", "run", "--color", "always", "codemode-check", env=env
    )

    assert out.returncode == 1, out.output
    assert ("\x1b[31mdrifted\x1b[0m" in out.output) is not no_color, out.output


def test_the_fixed_commit_passes(project: Project) -> None:
    project.write("src/shop/pricing.py", DRIFTED)
    project.git("add", "src/shop/pricing.py")
    assert project.commit("halve the discount").returncode != 0

    project.write("src/shop/pricing.py", REFACTORED)
    project.git("add", "src/shop/pricing.py")
    out = project.commit("name the discounted price")

    assert out.returncode == 0, out.output
    assert "codemode check" in out.output and "Passed" in out.output
    assert project.git("log", "-1", "--format=%s").strip() == "name the discounted price"


def test_commit_that_touches_no_python_or_yaml_skips_the_hook(project: Project) -> None:
    project.write("NOTES.txt", "nothing to verify\n")
    project.git("add", "NOTES.txt")
    out = project.commit("notes")
    assert out.returncode == 0, out.output
    assert "(no files to check)Skipped" in out.output


def test_yaml_that_is_not_a_spec_verifies_nothing(project: Project) -> None:
    """CI workflows and the pre-commit config wake the hook (they are YAML): nothing to verify."""
    project.write(".github/workflows/ci.yml", "on: push\n")
    project.git("add", ".github")
    out = project.pre_commit("codemode-check", "--verbose")
    assert out.returncode == 0, out.output
    assert "codemode: 0 functions" in out.output


@pytest.mark.parametrize("outcome", ["drifted", "passed"])
def test_check_hook_never_modifies_the_repository(project: Project, outcome: str) -> None:
    project.write("src/shop/pricing.py", DRIFTED if outcome == "drifted" else REFACTORED)
    project.git("add", "src/shop/pricing.py")
    # An unstaged edit and an untracked file too: pre-commit stashes and restores them,
    # and codemode must not leave anything behind either.
    project.write("specs/pricing.yml", project.read("specs/pricing.yml") + "# a note\n")
    project.write("scratch.py", "x = 1\n")
    before = project.state()

    out = project.pre_commit("codemode-check")

    assert out.returncode == (1 if outcome == "drifted" else 0), out.output
    assert project.state() == before


def test_unstaged_fix_does_not_unblock_a_drifting_commit(project: Project) -> None:
    project.write("src/shop/pricing.py", DRIFTED)
    project.git("add", "src/shop/pricing.py")
    project.write("src/shop/pricing.py", REFACTORED)  # fixed in the work tree only

    hooked = project.commit("halve the discount")
    direct = project.check_staged()

    assert hooked.returncode != 0, hooked.output
    assert "expected 90.0, observed 95.0" in hooked.output
    assert direct.returncode == 1, direct.output
    assert "expected 90.0, observed 95.0" in direct.output
    # pre-commit put the unstaged fix back; codemode did not touch it either.
    assert project.read("src/shop/pricing.py") == REFACTORED
    assert project.git("show", ":src/shop/pricing.py") == DRIFTED


def test_unstaged_drift_does_not_block_a_good_commit(project: Project) -> None:
    project.write("src/shop/pricing.py", REFACTORED)
    project.git("add", "src/shop/pricing.py")
    project.write("src/shop/pricing.py", DRIFTED)  # broken in the work tree only

    direct = project.check_staged()
    hooked = project.commit("name the discounted price")

    assert direct.returncode == 0, direct.output
    assert hooked.returncode == 0, hooked.output
    assert project.read("src/shop/pricing.py") == DRIFTED
    assert project.git("show", "HEAD:src/shop/pricing.py") == REFACTORED


@pytest.mark.parametrize(
    ("staged", "want"),
    [
        ({"src/shop/pricing.py": DRIFTED}, 1),
        ({"src/shop/pricing.py": REFACTORED}, 0),
        ({"specs/pricing.yml": WRONG_SPEC}, 1),
        # a function no spec covers changes what it returns: the behaviour diff's `changed` (#18)
        ({"src/shop/pricing.py": PRICING.replace('"{price:.2f} EUR"', '"EUR {price:.2f}"')}, 1),
    ],
    ids=["drifted-code", "refactored-code", "drifted-spec", "unspecd-function-changed"],
)
def test_check_staged_outside_pre_commit_gives_the_same_answer(
    project: Project, staged: dict[str, str], want: int
) -> None:
    for rel, text in staged.items():
        project.write(rel, text)
        project.git("add", rel)

    hooked = project.pre_commit("codemode-check")
    direct = project.check_staged()

    assert (hooked.returncode, direct.returncode) == (want, want), hooked.output + direct.output


def test_regen_hook_writes_specs_and_blocks_until_they_are_staged(project: Project) -> None:
    project.write(
        "src/shop/pricing.py",
        PRICING + '\n\ndef double(x: int) -> int:\n    """>>> double(2)\n    4\n    """\n'
        "    return 2 * x\n",
    )
    project.git("add", "src/shop/pricing.py")
    specs_before = {p: p.read_bytes() for p in (project.root / "specs").rglob("*.yml")}

    first = project.pre_commit("codemode-regen", "--hook-stage", "manual")

    assert first.returncode == 1, first.output
    assert "files were modified by this hook; review and stage them" in first.output
    specs_after = {p: p.read_bytes() for p in (project.root / "specs").rglob("*.yml")}
    assert specs_after != specs_before
    assert "shop.pricing.double" in "".join(b.decode() for b in specs_after.values())

    project.git("add", "specs")
    second = project.pre_commit("codemode-regen", "--hook-stage", "manual")
    assert second.returncode == 0, second.output
    assert project.commit("double, with its spec").returncode == 0


def test_regen_hook_is_not_run_by_a_plain_commit(project: Project) -> None:
    project.write(
        "src/shop/pricing.py", PRICING + "\n\ndef triple(x: int) -> int:\n    return 3 * x\n"
    )
    project.git("add", "src/shop/pricing.py")
    out = project.commit("triple")
    # the check hook's output is shown (verbose) and may suggest regen; the regen hook's name not
    assert "codemode regen (rewrite" not in out.output, out.output
    assert not [p for p in (project.root / "specs").rglob("*") if p.name != "pricing.yml"]


def test_hook_venv_is_shared(project: Project, hook_env: dict[str, str]) -> None:
    """Both hooks come from one repo at one rev with no extra dependencies: one virtualenv."""
    envs = list(Path(hook_env["PRE_COMMIT_HOME"]).glob("repo*/py_env-*"))
    assert len(envs) == 1, envs


def test_the_hook_shows_the_review_of_a_staged_spec_edit(project: Project) -> None:
    """A commit that edits an expectation the code contradicts says so in the hook's output
    (the `spec changes` block of `check --staged`, #19)."""
    project.write("specs/pricing.yml", WRONG_SPEC)
    project.git("add", "specs/pricing.yml")

    out = project.commit("a wrong expectation")

    assert out.returncode != 0
    assert "spec changes:\n  specs/pricing.yml: 1 added," in out.output
    assert "call: apply_discount(10.0, 0.5)" in out.output


def test_a_weakening_commit_passes_and_pre_commit_shows_its_review(project: Project) -> None:
    """pre-commit hides a passing hook's output; the manifest's `verbose: true` shows the review
    of a commit that removed a passing case (#35)."""
    spec = project.read("specs/pricing.yml")
    project.write("specs/pricing.yml", spec.replace(spec.splitlines(True)[3], ""))  # c01 out
    project.git("add", "specs/pricing.yml")

    out = project.commit("fewer cases")

    assert out.returncode == 0, out.output
    assert "Passed" in out.output
    assert "shop.pricing.apply_discount[c01] [weakened]: removed, and it still passes" in out.output
    assert "spec review: 1 weakened" in out.output


def test_a_removal_that_hides_a_behaviour_change_is_blocked(project: Project) -> None:
    """The code changes what c00 gives, and the commit removes c00 instead of fixing it."""
    project.write("src/shop/pricing.py", DRIFTED)
    spec = project.read("specs/pricing.yml")
    project.write("specs/pricing.yml", spec.replace(spec.splitlines(True)[2], ""))  # c00 out
    project.git("add", "src/shop/pricing.py", "specs/pricing.yml")

    out = project.pre_commit("codemode-check")

    assert out.returncode == 1, out.output
    assert "shop.pricing.apply_discount[c00] [hides_change]" in out.output
