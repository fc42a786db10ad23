"""Which scope `codemode action` checks, from its inputs and the event; the paired CLI call."""

from __future__ import annotations

import pytest

from codemode.errors import FatalError
from codemode.github.event import Event
from codemode.github.inputs import Inputs, read_inputs, scope_for
from codemode.scope import Scope

PR = Event("pull_request", repo="o/r", base="b" * 40, head="h" * 40, pr=7, head_ref="f")


@pytest.mark.parametrize(
    ("inputs", "event", "scope"),
    [
        # the checkout (merge commit or PR head) is what runs, so head is HEAD
        (Inputs(), PR, Scope("range", base="b" * 40, head="HEAD")),
        (
            Inputs(),
            Event("push", base="1" * 40, head="2" * 40),
            Scope("range", base="1" * 40, head="HEAD"),
        ),
        (Inputs(), Event("push", head="2" * 40), Scope("all")),
        (Inputs(), Event("workflow_dispatch"), Scope("all")),
        (
            Inputs(base="origin/main"),
            Event("workflow_dispatch"),
            Scope("range", base="origin/main", head="HEAD"),
        ),
        (Inputs(base="v1", head="v2"), PR, Scope("range", base="v1", head="v2")),
        (Inputs(args="--all"), PR, Scope("all")),
        (
            Inputs(args="specs/a.yml 'specs/b c.yml'"),
            PR,
            Scope("paths", paths=("specs/a.yml", "specs/b c.yml")),
        ),
    ],
)
def test_scope(inputs: Inputs, event: Event, scope: Scope) -> None:
    assert scope_for(inputs, event)[0] == scope


def test_initial_push_says_why_everything_was_checked() -> None:
    _, notes = scope_for(Inputs(), Event("push"))
    assert notes and "first push" in notes[0]


def test_args_refuse_other_flags() -> None:
    with pytest.raises(FatalError, match="unsupported"):
        scope_for(Inputs(args="--staged"), PR)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"INPUT_MODE": "fix"}, "mode"),
        ({"INPUT_COMMENT": "maybe"}, "comment"),
        ({"INPUT_COMMIT": "2"}, "commit"),
    ],
)
def test_bad_inputs_name_the_input(env: dict[str, str], message: str) -> None:
    with pytest.raises(FatalError, match=f"`{message}`"):
        read_inputs(env)


def test_javascript_style_input_names_are_read_too() -> None:
    assert read_inputs({"INPUT_GITHUB-TOKEN": "t", "INPUT_COMMENT-ID": "x"}).comment_id == "x"
