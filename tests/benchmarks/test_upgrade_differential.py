"""The ground truth of benchmarks/upgrade_detection.py: a differential run of two made-up
releases of a tiny package, with inputs from its tests, its docstrings and the generic pool."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _differential import (
    Call,
    changed_functions,
    harvest,
    positional_params,
    public_functions,
)

OLD = '''
import random

STATE = {"loud": False}

def shout(word):
    """
    >>> shout("hi")
    'HI!'
    """
    return word.upper() + "!"

def plural(word):
    return word + "s"

def pad(n, width=3):
    return str(n).rjust(width, "0")

def set_loud(on):
    STATE["loud"] = on
    return on

def volume(x):
    return "loud" if STATE["loud"] else "quiet"

def dice(x):
    return random.random()

def _private(x):
    return x
'''
# plural changes only on a word from the test table, pad only on a keyword argument from
# a starred parametrize row, shout only on the docstring's example input
NEW = (
    OLD.replace(
        'return word + "s"', 'return word[:-1] + "ies" if word.endswith("y") else word + "s"'
    )
    .replace('rjust(width, "0")', 'rjust(width, "0") if width < 5 else str(n)')
    .replace('return word.upper() + "!"', 'return word.upper() + ("!" if word != "hi" else "")')
)
TESTS = """
import pytest
import toy

WORDS = [("cat", "cats"), ("pony", "ponies")]

@pytest.mark.parametrize("single, many", WORDS)
def test_plural(single, many):
    assert toy.plural(single) == many

@pytest.mark.parametrize("args", [(7,), (7, 6)])
def test_pad(args):
    assert toy.pad(*args)

def test_loud():
    toy.set_loud(True)
    for x in [1, 2]:
        assert toy.volume(x)
"""


def _release(root: Path, body: str) -> Path:
    src = root / "src"
    (src / "toy").mkdir(parents=True)
    (src / "toy" / "__init__.py").write_text(textwrap.dedent(body), encoding="utf-8")
    (src / "toy" / "tests").mkdir()
    (src / "toy" / "tests" / "test_inside.py").write_text("def test_x(): pass\n", encoding="utf-8")
    return src


@pytest.fixture
def releases(tmp_path: Path) -> tuple[Path, Path, Path]:
    old = _release(tmp_path / "old", OLD)
    new = _release(tmp_path / "new", NEW)
    tests = tmp_path / "test_toy.py"
    tests.write_text(TESTS, encoding="utf-8")
    return old, new, tests


def test_public_functions_leave_out_private_names_and_test_modules(
    releases: tuple[Path, Path, Path],
) -> None:
    old, _, _ = releases
    assert sorted(public_functions(old)) == [
        "toy.dice",
        "toy.pad",
        "toy.plural",
        "toy.set_loud",
        "toy.shout",
        "toy.volume",
    ]


def test_harvest_takes_test_tables_starred_rows_loops_and_docstrings(
    releases: tuple[Path, Path, Path],
) -> None:
    old, _, tests = releases
    calls = harvest(
        public_functions(old), [(tests, "t.py")], [(old / "toy" / "__init__.py", "s.py")]
    )
    by_source = {c.source(): c.origin for c in calls if not c.origin.startswith("generic pool")}
    assert by_source == {
        "plural('cat')": "t.py:9",
        "plural('pony')": "t.py:9",
        "pad(7)": "t.py:13",
        "pad(7, 6)": "t.py:13",
        "set_loud(True)": "t.py:16",
        "shout('hi')": "s.py:8",
        # the loop variable of test_loud is bound from its literal table
        "volume(1)": "t.py:18",
        "volume(2)": "t.py:18",
    }
    assert Call("toy.plural", ("'a'",), (), "generic pool").key in {c.key for c in calls}


def test_changed_functions_are_the_ones_whose_stable_outcome_differs(
    releases: tuple[Path, Path, Path],
) -> None:
    old, new, tests = releases
    calls = harvest(
        public_functions(old), [(tests, "t.py")], [(old / "toy" / "__init__.py", "s.py")]
    )
    changes = changed_functions(old, new, calls)
    # dice is random (dropped as unstable); volume never sees set_loud's state (one process
    # per function), so it is unchanged; the others changed on the inputs named
    assert sorted(changes) == ["toy.pad", "toy.plural", "toy.shout"]
    assert changes["toy.plural"].call.source() == "plural('pony')"
    assert (changes["toy.plural"].old, changes["toy.plural"].new) == (
        "value:'ponys'",
        "value:'ponies'",
    )
    assert changes["toy.pad"].call.source() == "pad(7, 6)"
    assert 1 <= changes["toy.pad"].differing < changes["toy.pad"].compared
    assert changes["toy.shout"].call.origin == "s.py:8"


def test_identical_releases_change_nothing(releases: tuple[Path, Path, Path]) -> None:
    old, _, tests = releases
    calls = harvest(public_functions(old), [(tests, "t.py")], [])
    assert changed_functions(old, old, calls) == {}


def test_a_release_that_cannot_import_fails_the_run(
    releases: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    # a missing dependency makes every call fail in one release only: that must stop the
    # benchmark, not count as a change of behaviour
    old, _, tests = releases
    broken = _release(tmp_path / "broken", "import not_installed_anywhere\n" + OLD)
    calls = harvest(public_functions(old), [(tests, "t.py")], [])
    with pytest.raises(RuntimeError, match="not_installed_anywhere"):
        changed_functions(old, broken, calls)


def test_a_module_needing_an_optional_dependency_at_both_releases_is_left_out(
    releases: tuple[Path, Path, Path],
) -> None:
    # humanfriendly.sphinx imports docutils at both releases: its functions are left out,
    # the package's other functions still compared
    old, new, tests = releases
    for src in (old, new):
        (src / "toy" / "extra.py").write_text(
            "import not_installed_anywhere\n\ndef hook(x):\n    return x\n", encoding="utf-8"
        )
    calls = harvest(public_functions(old), [(tests, "t.py")], [])
    assert any(c.function == "toy.extra.hook" for c in calls)
    assert sorted(changed_functions(old, new, calls)) == ["toy.pad", "toy.plural"]


def test_harvest_follows_a_test_helper_that_passes_its_parameter_on(tmp_path: Path) -> None:
    # unittest suites keep their inputs in helper calls: self.check('pony', 'ponies') runs
    # toy.plural(word) inside check; neither call alone has a literal input of plural
    tests = tmp_path / "test_helper.py"
    tests.write_text(
        textwrap.dedent(
            """
            import unittest
            import toy

            class T(unittest.TestCase):
                def check(self, word, many, width=4):
                    self.assertEqual(toy.plural(word), many)
                    self.assertTrue(toy.pad(word, width=width))

                def test_words(self):
                    self.check('pony', 'ponies')
                    for w in ['cat']:
                        self.check(w, 'cats', 6)
            """
        ),
        encoding="utf-8",
    )
    old = _release(tmp_path / "old", OLD)
    calls = harvest(public_functions(old), [(tests, "t.py")], [])
    found = {c.source() for c in calls if not c.origin.startswith("generic pool")}
    assert {"plural('pony')", "plural('cat')", "pad('pony', width=4)", "pad('cat', width=6)"} <= (
        found
    )


def test_position_variants_try_the_generic_pool_in_every_argument(
    releases: tuple[Path, Path, Path],
) -> None:
    # pad changes only when its second argument is 5 or more: besides the test's (7, 6),
    # the generic pool in the second position of the tests' calls finds it
    old, new, tests = releases
    calls = harvest(public_functions(old), [(tests, "t.py")], [], positional_params(old))
    by_source = {c.source(): c.origin for c in calls}
    assert by_source["pad(7, 100)"] == "generic pool as argument 2 of t.py:13"
    assert by_source["pad(100, 6)"] == "generic pool as argument 1 of t.py:13"
    second = [c for c in calls if c.origin.startswith("generic pool as argument 2")]
    assert "toy.pad" in changed_functions(old, new, second)
    # a one-argument call of a two-parameter function also tries the second position
    assert by_source["plural(100)"] == "generic pool"
    assert positional_params(old)["toy.pad"] == 2


def test_one_upgrade_end_to_end_from_a_cached_sdist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the benchmark's own pull-request flow on a made-up library already in the cache (no
    # download): bootstrap on 1.0 and commit the specs, check (no false drift), then bring
    # 1.1 with its new test, staged and committed: the change is flagged in both scopes with
    # a call that re-checks as a real difference, the refactor-only function is not
    import _releases
    import upgrade_detection as bench

    cache = tmp_path / "cache"
    body = (
        "def triple(x: int) -> int:\n    return x * 3\n\n"
        "def same(x: int) -> int:\n    return x\n\n"
        "def tidy(x: int) -> int:\n    return x + 0\n"
    )
    new_body = body.replace("x * 3", "x * 4").replace("x + 0", "0 + x")
    for version, text in (("1.0", body), ("1.1", new_body)):
        sdist = cache / "src" / f"toy-{version}"
        (sdist / "toy").mkdir(parents=True)
        (sdist / "toy" / "__init__.py").write_text(text, encoding="utf-8")
        (sdist / "tests").mkdir()
        (sdist / "tests" / "test_toy.py").write_text(
            "import toy\n\ndef test_triple():\n    assert toy.triple(2) == 6\n", encoding="utf-8"
        )
    monkeypatch.setattr(_releases, "CACHE", cache)
    announced = (bench.Announced("toy.triple", "triple(2)", "value:6", "value:8", "1.1"),)
    out = bench.measure(
        bench.Library("toy", "toy", "1.0", "1.1"), tmp_path / "work", None, announced
    )
    assert out.truth == ["toy.triple"] and out.both == ["toy.triple"] and out.alone == []
    assert sorted(out.differential) == ["toy.triple"]
    assert out.differential["toy.triple"].call.origin == "toy-1.1:tests/test_toy.py:4"
    assert out.kinds == {"toy.same": "unchanged", "toy.tidy": "refactor-only"}
    assert (out.functions, out.false_drift) == (3, [])
    from _scoring import SCOPES

    for scope in SCOPES:
        assert out.caught(scope) == ["toy.triple"], scope
        assert out.false_alarms(scope) == []
        verdicts = [v for _, v in out.scopes[scope].witnesses["toy.triple"]]
        assert "real" in verdicts
    # the specs bootstrapped are cached outside the repository, keyed by codemode's source
    assert len(list((cache / "bootstrap").glob("toy-1.0-*/*.yml"))) >= 1
    # the ground truth is computed once per pair of releases: the second run reads it back
    assert list((cache / "truth").glob("toy-1.0-1.1-*.json"))
    again = bench.cached_truth(
        bench.Library("toy", "toy", "1.0", "1.1"),
        cache / "src" / "toy-1.0",
        cache / "src" / "toy-1.1",
        tmp_path / "again",
    )
    assert (again[0], again[1]) == (out.differential, out.kinds)


def test_a_flags_calls_are_rerun_on_both_releases(releases: tuple[Path, Path, Path]) -> None:
    # the witness of a flag counts only when its call really differs: codemode's JSON
    # witness (args, kwargs) and a drifted case's inputs are rebuilt as calls and re-run
    from _witness import recheck, witnesses

    old, new, _ = releases
    flagged = {
        "id": "toy.pad",
        "status": "changed",
        "witnesses": [
            {"call": "pad(7, 6)", "args": [7, 6], "kwargs": None, "old": "", "new": ""},
            {"call": "pad(7, width=2)", "args": [7], "kwargs": {"width": 2}},
            {"call": "pad(object())", "args": [], "kwargs": {"n": {"a": object()}}},
            {"call": "pad(nan, inf)", "args": [float("nan"), float("inf")], "kwargs": None},
        ],
    }
    found = witnesses(old, flagged)
    assert [w.call.source() if w.call else None for w in found] == [
        "pad(7, 6)",
        "pad(7, width=2)",
        None,
        "pad(float('nan'), float('inf'))",
    ]
    verdicts = recheck(old, new, found)
    # pad(nan, inf) is re-run, not taken for bad input: the old rjust(inf) raised, the new
    # release returns str(n) for a width of 5 or more
    assert [verdicts[w] for w in found] == ["real", "same", "not re-checkable", "real"]


def test_a_methods_witness_is_rerun_on_its_instance(tmp_path: Path) -> None:
    from _witness import recheck, witnesses

    body = (
        "class Version:\n    def __init__(self, text='0'):\n        self.text = text\n"
        "    def bump(self, by=1):\n        return self.text + '+' * by\n"
    )
    releases = []
    for name, text in (("old", body), ("new", body.replace("'+' * by", "'+' * (by + 1)"))):
        (tmp_path / name / "toy").mkdir(parents=True)
        (tmp_path / name / "toy" / "__init__.py").write_text(text, encoding="utf-8")
        releases.append(tmp_path / name)
    flagged = {
        "id": "toy.Version.bump",
        "witnesses": [
            {
                "call": "Version('1.0').bump(2)",
                "args": [2],
                "kwargs": None,
                "receiver": {"cls": "toy.Version", "args": ["1.0"], "kwargs": {}},
            },
            {"call": "Version().bump(0)", "args": [0], "kwargs": None, "receiver": None},
        ],
    }
    found = witnesses(releases[0], flagged)
    assert found[0].receiver == ("toy.Version", ("'1.0'",), (), ())  # no preparing calls
    verdicts = recheck(releases[0], releases[1], found)
    assert [verdicts[w] for w in found] == ["real", "real"]


def test_the_bootstrap_takes_every_changed_and_refactor_only_function_and_a_sample() -> None:
    import upgrade_detection as bench

    kinds = {f"m.u{i}": "unchanged" for i in range(20)} | {"m.r": "refactor-only"}
    picked = bench.chosen({"m.c"}, kinds, 3)
    assert picked is not None and {"m.c", "m.r"} <= set(picked) and len(picked) == 5
    assert picked == bench.chosen({"m.c"}, kinds, 3)  # the same pick every run
    assert bench.chosen({"m.c"}, kinds, None) is None  # --unchanged all: regen --all
    assert bench.chosen({"m.c"}, kinds, 20) is None  # the sample is all of them
    # a release that touches every function (type annotations) bootstraps a sample of them
    moved = {f"m.r{i}": "refactor-only" for i in range(100)}
    picked = bench.chosen({"m.c"}, moved, 3)
    assert picked is not None and len(picked) == 1 + bench.REFACTOR_SAMPLE and "m.c" in picked


def test_a_change_that_is_a_coin_flip_does_not_hold(tmp_path: Path) -> None:
    from _differential import Call
    from _witness import steady

    for side, body in (("old", "x * 3"), ("new", "x * 4")):
        (tmp_path / side / "toy").mkdir(parents=True)
        (tmp_path / side / "toy" / "__init__.py").write_text(
            f"import random\n\ndef triple(x):\n    return {body}\n\n"
            "def shuffled(x):\n    return random.sample(range(50), 50)\n",
            encoding="utf-8",
        )
    calls = [Call("toy.triple", ("2",)), Call("toy.shuffled", ("2",))]
    assert steady(tmp_path / "old", tmp_path / "new", calls) == [True, False]


def test_a_witness_of_bytes_is_rerun_with_bytes() -> None:
    # codemode's JSON holds bytes as {"$bytes": base64}: re-run as that dict, load(b"x")
    # read as "same" on both releases where codemode saw a TypeError become an OSError
    from _witness import call_from_inputs

    call = call_from_inputs("m.load", {"inputs": [{"$bytes": "dGVzdC50b21s"}]}, "witness 1")
    assert call is not None and call.args == ("b'test.toml'",)
    assert call_from_inputs("m.f", {"inputs": [{"$class": "functools.partial"}]}, "") is None


def test_a_witness_is_rerun_from_the_call_codemode_showed() -> None:
    # the JSON report's args hold bytes as text; the call's repr keeps them bytes
    from _witness import witness_call

    w = {"call": "load(b'test.toml')", "args": ["test.toml"], "kwargs": None}
    call = witness_call("m.load", w, 1).call
    assert call is not None and call.args == ("b'test.toml'",)


# -- the changelog's truth (#32): announced changes confirmed by running both releases --------


def _toy_releases(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    out = []
    for side, body in (("old", old), ("new", new)):
        (tmp_path / side / "toy").mkdir(parents=True)
        (tmp_path / side / "toy" / "__init__.py").write_text(body, encoding="utf-8")
        out.append(tmp_path / side)
    return out[0], out[1]


def test_an_announced_change_counts_only_when_both_releases_confirm_it(tmp_path: Path) -> None:
    from _changelog import CONFIRMED, Announced, confirm

    body = (
        "class Box:\n    def __init__(self, n=1):\n        self.n = n\n"
        "    def size(self):\n        return self.n * 2\n\n"
        "def triple(x):\n    return x * 3\n\n"
        "def strict(x):\n    raise ValueError('bad ' + str(x))\n"
    )
    new = body.replace("x * 3", "x * 3 if x != 4242 else 0").replace("'bad '", "'wrong '")
    new = new.replace("self.n * 2", "self.n * 3")
    old_src, new_src = _toy_releases(tmp_path, body, new)
    written = [
        Announced("toy.triple", "triple(4242)", "value:12726", "value:0"),
        Announced("toy.Box.size", "Box(2).size()", "value:4", "value:6"),
        # the changelog's old outcome is not what the old release does
        Announced("toy.triple", "triple(4242)", "value:1", "value:0"),
        # the same exception type with another message: no change of behaviour
        Announced("toy.strict", "strict(1)", "raised:ValueError", "raised:TypeError"),
    ]
    verdicts = confirm(old_src, new_src, written)
    assert [verdicts[a] == CONFIRMED for a in written] == [True, True, False, False]
    assert "the old release gives 'value:12726'" in verdicts[written[2]]
    assert verdicts[written[3]].startswith("only the exception's message differs")


def test_a_pair_the_pool_misses_is_kept_and_scored_from_its_changelog(tmp_path: Path) -> None:
    # the old harness dropped a pair whose differential run found nothing; now the announced
    # change is the truth, in the "changelog alone" column, and nothing is dropped
    import upgrade_detection as bench

    body = "def triple(x):\n    return x * 3\n"
    old, new = _toy_releases(tmp_path, body, body.replace("x * 3", "x * 3 if x != 4242 else 0"))
    for sdist in (old, new):
        (sdist / "tests").mkdir()
        (sdist / "tests" / "test_toy.py").write_text(
            "import toy\n\ndef test_triple():\n    assert toy.triple(2) == 6\n", encoding="utf-8"
        )
    lib = bench.Library("toy-nodrop", "toy", "1.0", "1.1")
    announced = (bench.Announced("toy.triple", "triple(4242)", "value:12726", "value:0"),)
    out, _, _ = bench.truths(lib, old, new, tmp_path / "work", announced)
    assert out.excluded == ""
    assert out.differential == {}
    assert (out.truth, out.both, out.alone, out.extra) == (["toy.triple"], [], ["toy.triple"], [])


def test_a_release_that_cannot_run_here_excludes_the_pair_with_its_reason(tmp_path: Path) -> None:
    import upgrade_detection as bench

    old, new = _toy_releases(
        tmp_path, "import not_installed_anywhere\n", "def f(x):\n    return x\n"
    )
    lib = bench.Library("toy-broken", "toy", "1.0", "1.1")
    out, _, _ = bench.truths(
        lib, old, new, tmp_path / "work", (bench.Announced("toy.f", "f(1)", "value:0", "value:1"),)
    )
    assert out.excluded.startswith(bench.UNRUNNABLE) and "not_installed_anywhere" in out.excluded


def _scored(flagged: dict[str, str], verdicts: dict[str, str], report: dict[str, str]) -> Any:
    """An Outcome whose two scopes flagged ``flagged`` with re-check ``verdicts``, and whose
    reports hold ``report``'s functions with those diff notes."""
    from _changelog import CONFIRMED, Announced
    from _differential import Call, Change
    from _scoring import Outcome, Scope
    from _witness import Witness

    out = Outcome(bench_lib())
    for fid in ("m.both", "m.alone", "m.scope", "m.pool", "m.form"):
        out.announced[Announced(fid, f"{fid}(1)", "value:1", "value:2")] = CONFIRMED
    out.announced[Announced("m.nope", "nope(1)", "value:1", "value:2")] = "no difference when run"
    for fid in ("m.both", "m.extra"):
        out.differential[fid] = Change(fid, Call(fid, ("1",)), "value:1", "value:2")
    out.known = {"m.both", "m.alone", "m.scope", "m.pool", "m.form", "m.extra", "m.quiet"}
    for name in ("base", "staged"):
        s = Scope(flagged=dict(flagged))
        s.report = {f: {"id": f, "status": "ok", "diff_note": n} for f, n in report.items()}
        s.report.update({f: {"id": f, "status": v} for f, v in flagged.items()})
        for fid, v in verdicts.items():
            s.witnesses[fid] = [(Witness(fid, Call(fid, ("1",)), "witness 1", ""), v)]
        out.scopes[name] = s
    return out


def bench_lib() -> Any:
    from _releases import Library

    return Library("m", "m", "1", "2")


def test_the_figures_split_by_source_and_count_misses_by_cause(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from _scoring import summary

    out = _scored(
        flagged={
            "m.both": "changed",
            "m.alone": "changed",
            "m.extra": "changed",
            "m.quiet": "changed",
        },
        # m.quiet's only difference is a message: no change, so its flag is a false alarm
        verdicts={
            "m.both": "real",
            "m.alone": "real",
            "m.extra": "real",
            "m.quiet": "real (message)",
        },
        report={"m.pool": "", "m.form": "no inputs to compare the versions on"},
    )
    assert out.truth == ["m.alone", "m.both", "m.form", "m.pool", "m.scope"]  # m.nope left out
    assert (out.both, out.alone, out.extra) == (
        ["m.both"],
        ["m.alone", "m.form", "m.pool", "m.scope"],
        ["m.extra"],
    )
    assert out.caught("base") == ["m.alone", "m.both"]
    assert out.misses("base") == {"m.scope": "scope", "m.pool": "pool", "m.form": "spec form"}
    assert out.false_alarms("base") == ["m.quiet"]
    assert summary("toy set", [out]) is False
    text = capsys.readouterr().out
    assert "caught with a correct witness 2/5 = 40%" in text
    assert "found by both sources 1/1 = 100%; by the changelog alone 1/4 = 25%" in text
    assert "the differential run adds 1/1" in text
    assert "false alarms 1 (flags whose only difference is a message: 1)" in text
    assert "misses by cause: scope 1, spec form 1, pool 1" in text
    assert "not confirmed 1" in text


def test_the_target_is_met_only_with_no_false_alarm(capsys: pytest.CaptureFixture[str]) -> None:
    from _scoring import summary

    everything = {f: "changed" for f in ("m.both", "m.alone", "m.scope", "m.pool", "m.form")}
    out = _scored(everything, {f: "real" for f in everything}, {})
    assert summary("toy set", [out]) is True
    out.scopes["staged"].flagged["m.quiet"] = "changed"  # no witness: a false alarm
    assert summary("toy set", [out]) is False


def test_a_witness_counts_under_the_function_its_release_defines(tmp_path: Path) -> None:
    # wcwidth.wcwidth imports list_versions from wcwidth.unicode_versions: a witness written
    # under the importing module's name is not that function's, and codemode never reports it
    from _changelog import defined

    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "__init__.py").write_text("from toy.sub import f\n", encoding="utf-8")
    (tmp_path / "toy" / "sub.py").write_text(
        "def f():\n    pass\n\nclass Box:\n    def size(self):\n        pass\n", encoding="utf-8"
    )
    assert defined(tmp_path, "toy.sub.f") and defined(tmp_path, "toy.sub.Box.size")
    assert not defined(tmp_path, "toy.f") and not defined(tmp_path, "toy.sub.Box.weight")
