"""Statuses per function across the shapes a real change takes (issue 3, acceptance 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.errors import FatalError
from codemode.scope import Scope

A = """
    def helper(x):
        return x + 1


    def other(y):
        return y * 2
"""


def test_modified_added_removed_in_one_file(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit()
    repo.write(
        "src/pkg/a.py",
        """
        def helper(x):
            return x + 2


        def brand_new():
            return 0
        """,
    )
    result = repo.analyze(Scope("worktree"))
    assert repo.statuses(result) == {
        "pkg.a.helper": "modified",
        "pkg.a.other": "removed",
        "pkg.a.brand_new": "added",
    }
    helper = repo.by_id(result)["pkg.a.helper"]
    assert (helper.path, helper.lineno, helper.end_lineno) == ("src/pkg/a.py", 1, 2)
    assert helper.changed_lines == (2,)
    assert helper.fingerprint and helper.fingerprint.startswith("sha256:")
    removed = repo.by_id(result)["pkg.a.other"]
    assert removed.lineno is None and removed.path == "src/pkg/a.py"


def test_renamed_and_moved_file_keeps_function_as_renamed(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit()
    repo.git("mv", "src/pkg/a.py", "src/pkg/b.py")
    base = repo.git("rev-parse", "HEAD")
    repo.commit("move")
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.b.helper": "renamed", "pkg.b.other": "renamed"}
    assert repo.by_id(result)["pkg.b.helper"].renamed_from == "pkg.a.helper"
    assert dict(result.renames) == {"pkg.a.helper": "pkg.b.helper", "pkg.a.other": "pkg.b.other"}
    assert result.changed_files == ("src/pkg/b.py",)


def test_moved_file_with_an_edit(repo):
    repo.write("src/pkg/a.py", A)
    base = repo.commit()
    (repo.root / "src/pkg/a.py").unlink()
    repo.write("src/pkg/sub/c.py", A.replace("x + 1", "x + 100"))
    repo.commit()
    assert repo.statuses(repo.range(base)) == {
        "pkg.a.helper": "removed",
        "pkg.sub.c.helper": "added",
        "pkg.sub.c.other": "renamed",
    }


def test_function_renamed_in_place(repo):
    base = repo.commit_change("src/pkg/a.py", A, A.replace("def other", "def twice"))
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.a.twice": "renamed"}
    assert result.renames["pkg.a.other"] == "pkg.a.twice"


def test_deleted_and_new_files(repo):
    repo.write("src/pkg/a.py", A)
    base = repo.commit()
    repo.git("rm", "-q", "src/pkg/a.py")
    repo.write("src/pkg/new.py", "def fresh(): return 1\n")
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {
        "pkg.a.helper": "removed",
        "pkg.a.other": "removed",
        "pkg.new.fresh": "added",
    }
    assert repo.by_id(result)["pkg.new.fresh"].changed_lines == (1,)
    assert result.changed_files == ("src/pkg/a.py", "src/pkg/new.py")


def test_comment_docstring_and_formatting_edits_change_nothing(repo):
    repo.write(
        "src/pkg/a.py",
        '''
        def helper(x, y):
            """Add."""
            return x + y  # plain
        ''',
    )
    base = repo.commit()
    repo.write(
        "src/pkg/a.py",
        '''
        # a new comment at the top
        def helper(
            x,
            y,
        ):
            """Add two numbers.

            A longer docstring now.
            """
            # why: nothing
            return (x +
                    y)  # still plain
        ''',
    )
    repo.commit()
    result = repo.range(base)
    assert result.functions == ()
    assert "pkg.a.helper" in result.head_ids


def test_docstring_only_edit_of_a_method_and_a_class(repo):
    src = '''
        class C:
            """Doc."""

            def m(self):
                """Doc."""
                return 1
    '''
    base = repo.commit_change("src/pkg/a.py", src, src.replace('"""Doc."""', '"""Other words."""'))
    assert repo.range(base).functions == ()


def test_binary_files_are_skipped_and_a_nul_py_file_is_a_problem(repo):
    repo.write("src/pkg/a.py", A)
    repo.write("src/pkg/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    base = repo.commit()
    repo.write("src/pkg/logo.png", b"\x89PNG\r\n\x1a\n\x00\x01")
    repo.write("src/pkg/blob.py", b"def f():\n    return 1\x00\n")
    repo.write("src/pkg/a.py", A.replace("x + 1", "x - 1"))
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.a.helper": "modified"}
    assert any(p.startswith("src/pkg/blob.py:") and "binary" in p for p in result.problems)
    assert "src/pkg/logo.png" in result.changed_files


def test_non_utf8_source_honours_its_coding_cookie(repo):
    text = "# -*- coding: latin-1 -*-\ndef greet():\n    return 'café'\n"
    base = repo.commit_change(
        "src/pkg/fr.py", text.encode("latin-1"), text.replace("café", "thé").encode("latin-1")
    )
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.fr.greet": "modified"}
    assert result.problems == ()


def test_undecodable_source_is_a_problem_and_the_rest_goes_on(repo):
    repo.write("src/pkg/a.py", A)
    base = repo.commit()
    repo.write("src/pkg/bad.py", b"def f():\n    return '\xff\xfe'\n")  # not UTF-8, no cookie
    repo.write("src/pkg/a.py", A.replace("y * 2", "y * 3"))
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.a.other": "modified"}
    assert [p for p in result.problems if p.startswith("src/pkg/bad.py:1: cannot decode")]


def test_syntax_error_on_one_side_is_reported_and_the_rest_goes_on(repo):
    repo.write("src/pkg/a.py", A)
    repo.write("src/pkg/b.py", "def fine():\n    return 1\n")
    base = repo.commit()
    repo.write("src/pkg/a.py", A.replace("return x + 1", "return x +"))
    repo.write("src/pkg/b.py", "def fine():\n    return 2\n")
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.b.fine": "modified"}
    (problem,) = result.problems
    assert problem.startswith("src/pkg/a.py:2: syntax error") and problem.endswith("(skipped)")


def test_files_outside_the_source_roots_are_skipped_with_a_note(repo):
    repo.write("src/pkg/a.py", A)
    repo.write("scripts/tool.py", "def run(): return 1\n")
    base = repo.commit()
    repo.write("scripts/tool.py", "def run(): return 2\n")
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 3"))
    repo.commit()
    result = repo.range(base, source_roots=("src",))
    assert repo.statuses(result) == {"pkg.a.helper": "modified"}
    assert result.problems == (
        "scripts/tool.py: outside the source roots or not importable (skipped)",
    )


def test_flat_layout_and_packages(repo):
    repo.write("shop/__init__.py", "def version(): return 1\n")
    repo.write("shop/pricing.py", "def price(): return 1\n")
    base = repo.commit()
    repo.write("shop/__init__.py", "def version(): return 2\n")
    repo.write("shop/pricing.py", "def price(): return 2\n")
    repo.commit()
    assert repo.statuses(repo.range(base)) == {
        "shop.version": "modified",
        "shop.pricing.price": "modified",
    }


def test_merge_commit_range_shows_only_the_branch_change(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 5"))
    repo.commit("feature edit")
    repo.git("checkout", "-q", "main")
    repo.write("src/pkg/b.py", "def mainline(): return 1\n")
    repo.commit("main moves on")
    repo.git("checkout", "-q", "feature")
    repo.git("merge", "-q", "--no-edit", "main")  # a merge commit on the PR branch
    assert len(repo.git("rev-parse", "HEAD^@").split()) == 2
    result = repo.range("main", "feature")
    assert repo.statuses(result) == {"pkg.a.helper": "modified"}


def test_detached_head(repo):
    base = repo.commit_change("src/pkg/a.py", A, A.replace("x + 1", "x + 9"))
    repo.git("checkout", "-q", "--detach", "HEAD")
    assert repo.statuses(repo.range(base)) == {"pkg.a.helper": "modified"}
    repo.write("src/pkg/a.py", A)
    repo.git("add", "-A")
    assert repo.statuses(repo.staged()) == {"pkg.a.helper": "modified"}


def test_initial_commit_staged_is_all_added(repo):
    repo.write("src/pkg/a.py", A)
    repo.git("add", "-A")
    assert repo.statuses(repo.staged()) == {"pkg.a.helper": "added", "pkg.a.other": "added"}


def test_staged_ignores_unstaged_edits(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit()
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 2"))
    repo.git("add", "-A")
    repo.write("src/pkg/a.py", A.replace("y * 2", "y * 7"))  # unstaged
    assert repo.statuses(repo.staged()) == {"pkg.a.helper": "modified"}
    assert repo.statuses(repo.analyze(Scope("worktree"))) == {"pkg.a.other": "modified"}


def test_shallow_clone_lacking_the_base_says_fetch_depth_0(repo, tmp_path: Path):
    repo.write("src/pkg/a.py", A)
    base = repo.commit("one")
    for n in range(3):
        repo.write("src/pkg/a.py", A.replace("x + 1", f"x + {n + 2}"))
        repo.commit(f"edit {n}")
    clone = tmp_path / "clone"
    repo.git("clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))
    from codemode.change.diff import analyze
    from codemode.config import Config

    with pytest.raises(FatalError, match="fetch-depth: 0") as info:
        analyze(Config(root=clone), Scope("range", base=base, head="HEAD"))
    assert "git fetch origin" in str(info.value)


def test_not_a_repository(tmp_path: Path):
    from codemode.change.diff import analyze
    from codemode.config import Config

    with pytest.raises(FatalError, match=r"not a git repository.*git init"):
        analyze(Config(root=tmp_path), Scope("staged"))


def test_unknown_base_says_what_to_do(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit()
    with pytest.raises(FatalError, match=r"origin/nope.*git fetch origin origin/nope"):
        repo.range("origin/nope")


def test_submodules_are_skipped(repo, new_repo, tmp_path: Path):
    lib = new_repo(tmp_path / "lib")
    lib.write("lib.py", "def inner(): return 1\n")
    lib.commit()
    repo.write("src/pkg/a.py", A)
    repo.git(
        "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(lib.root), "vendor/lib"
    )
    base = repo.commit("add submodule")
    lib.write("lib.py", "def inner(): return 2\n")
    lib.commit()
    repo.git("-C", "vendor/lib", "pull", "-q")
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 4"))
    repo.commit("bump")
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.a.helper": "modified"}
    assert not any(i.startswith("vendor") for i in result.head_ids)


def test_symlinks_are_skipped(repo):
    repo.write("src/pkg/real.py", A)
    (repo.root / "src/pkg/alias.py").symlink_to("real.py")
    base = repo.commit()
    repo.write("src/pkg/real.py", A.replace("x + 1", "x + 8"))
    (repo.root / "src/pkg/link2.py").symlink_to("real.py")
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.real.helper": "modified"}
    assert not any(i.startswith(("pkg.alias", "pkg.link2")) for i in result.head_ids)
    repo.write("src/pkg/real.py", A)
    assert repo.statuses(repo.analyze(Scope("worktree"))) == {"pkg.real.helper": "modified"}


def test_all_scope_lists_every_function(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit()
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 2"))
    result = repo.analyze(Scope("all"))
    assert repo.statuses(result) == {"pkg.a.helper": "modified", "pkg.a.other": "unchanged"}
    assert all(f.fingerprint for f in result.functions)


def test_non_ascii_paths(repo):
    base = repo.commit_change("src/pkg/café.py", A, A.replace("x + 1", "x + 2"))
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.café.helper": "modified"}
    assert repo.by_id(result)["pkg.café.helper"].changed_lines == (2,)


def test_a_merge_conflict_in_the_index_is_a_problem_not_a_removal(repo):
    repo.write("src/pkg/a.py", A)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "other")
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 2"))
    repo.commit("other")
    repo.git("checkout", "-q", "main")
    repo.write("src/pkg/a.py", A.replace("x + 1", "x + 3"))
    repo.commit("main")
    import subprocess

    subprocess.run(["git", "merge", "-q", "other"], cwd=repo.root, capture_output=True)
    result = repo.staged()
    assert "removed" not in repo.statuses(result).values()
    assert "src/pkg/a.py: unmerged (skipped)" in result.problems


def test_lines_that_look_like_patch_headers(repo):
    # removed "-- ..." and added "++ ..." lines print as "--- ..." and "+++ ..." in a patch
    src = 'def sql():\n    return """\n-- old comment\n"""\n\n\ndef other():\n    return 1\n'
    base = repo.commit_change(
        "src/pkg/a.py", src, src.replace("-- old comment", "++ new text").replace("1\n", "2\n")
    )
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.a.sql": "modified", "pkg.a.other": "modified"}
    assert repo.by_id(result)["pkg.a.other"].changed_lines == (8,)
