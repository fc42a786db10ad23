"""The analysis cache changes speed, never answers."""

from __future__ import annotations

from codemode.scope import Scope

SRC = "def helper(x):\n    return x + 1\n\n\ndef caller(x):\n    return helper(x) * 2\n"
EDITED = SRC.replace("x + 1", "x + 2")


def cache_dir(repo):
    return repo.root / ".git" / "codemode-cache"


def test_a_warm_run_answers_like_a_cold_one(repo):
    base = repo.commit_change("src/pkg/a.py", SRC, EDITED)
    cold = repo.range(base)
    assert cache_dir(repo).is_dir()
    warm = repo.range(base)
    assert warm.functions == cold.functions
    assert dict(warm.renames) == dict(cold.renames)
    assert warm.changed_files == cold.changed_files
    assert set(warm.head_ids) == set(cold.head_ids) == {"pkg.a.helper", "pkg.a.caller"}


def test_without_the_cache_the_answer_is_the_same(repo):
    from codemode.change.diff import analyze

    base = repo.commit_change("src/pkg/a.py", SRC, EDITED)
    scope = Scope("range", base=base, head="HEAD")
    uncached = analyze(repo.config(), scope, cache=False)
    assert not cache_dir(repo).exists()
    assert uncached.functions == repo.range(base).functions


def test_staged_results_follow_the_index(repo):
    repo.write("src/pkg/a.py", SRC)
    repo.commit()
    repo.write("src/pkg/a.py", EDITED)
    repo.git("add", "-A")
    assert repo.statuses(repo.staged()) == {"pkg.a.helper": "modified", "pkg.a.caller": "impacted"}
    repo.write("src/pkg/a.py", SRC.replace("* 2", "* 3"))
    repo.git("add", "-A")
    assert repo.statuses(repo.staged()) == {"pkg.a.caller": "modified"}


def test_a_corrupt_cache_is_ignored(repo):
    base = repo.commit_change("src/pkg/a.py", SRC, EDITED)
    expected = repo.range(base).functions
    (cache_dir(repo) / "analysis.sqlite3").write_bytes(b"not a database")
    for extra in cache_dir(repo).glob("analysis.sqlite3-*"):
        extra.unlink()
    assert repo.range(base).functions == expected


def test_the_cache_lives_in_the_git_dir_so_it_is_never_committed(repo):
    repo.write("src/pkg/a.py", SRC)
    repo.commit()
    repo.write("src/pkg/a.py", EDITED)
    repo.git("add", "-A")
    repo.staged()
    assert cache_dir(repo).is_dir()
    assert repo.git("status", "--porcelain") == "M  src/pkg/a.py"


def test_a_corrupt_result_file_is_recomputed(repo):
    base = repo.commit_change("src/pkg/a.py", SRC, EDITED)
    expected = repo.range(base).functions
    results = list((cache_dir(repo) / "results").iterdir())
    assert results
    for path in results:
        path.write_bytes(b"\x00garbage")
    assert repo.range(base).functions == expected
    assert repo.range(base).functions == expected  # and it was written again


def test_old_results_are_evicted(repo, monkeypatch):
    import codemode.change.cache

    monkeypatch.setattr(codemode.change.cache, "_KEEP_RESULTS", 2)
    repo.write("src/pkg/a.py", SRC)
    base = repo.commit()
    for n in range(4):
        repo.write("src/pkg/a.py", SRC.replace("x + 1", f"x + {n + 2}"))
        repo.commit()
        repo.range(base)
    assert len(list((cache_dir(repo) / "results").iterdir())) == 2
