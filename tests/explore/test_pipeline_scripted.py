"""The model pipeline with FunctionModel scripts that behave like real models."""

from __future__ import annotations

import asyncio
from typing import Any

from scripted import Scripted, call_numbers, choose_all

from codemode.config import Config
from codemode.explore.llm.budget import ModelBudget
from codemode.explore.llm.pipeline import Exploration, explore_with_model
from codemode.explore.llm.snippets import SnippetRunner
from codemode.explore.record import Recorder
from codemode.explore.target import load_target
from codemode.worker.pool import Worker

GOOD_PLAN = [
    "for p, r in [(100.0, 0.1), (5.0, 0), (10.0, 1)]:\n    apply_discount(p, r)",
    "for bad in [(-1.0, 0.1), (10.0, 1.5)]:\n    try:\n        apply_discount(*bad)\n    except ValueError:\n        pass",
]


def explore(
    config: Config,
    worker: Worker,
    script: Scripted,
    fid: str = "shop.pricing.apply_discount",
    **kw: Any,
) -> tuple[Exploration, Recorder]:
    info = load_target(config, fid)
    recorder = Recorder(worker, fid)
    budget = kw.pop("budget", None) or ModelBudget("scripted")

    async def go() -> Exploration:
        with SnippetRunner(feed_seconds=0.5) as runner:
            return await explore_with_model(info, recorder, runner, script.model(), budget, **kw)

    return asyncio.run(go()), recorder


def test_good_plan_gives_cases_from_the_record_in_two_requests(
    shop_config: Config, worker: Worker
) -> None:
    script = Scripted([GOOD_PLAN], choose=choose_all())
    ex, _ = explore(shop_config, worker, script)
    assert ex.requests == 2  # every line reached: no second round of snippets
    assert [p for p, _ in script.prompts] == ["run", "choose"]
    by_inputs = {tuple(c["inputs"]): c for c in ex.cases}
    assert by_inputs[(100.0, 0.1)]["expected"] == 90.0
    assert by_inputs[(-1.0, 0.1)]["raises"] == "ValueError"
    assert by_inputs[(-1.0, 0.1)]["match"] == "^negative price$"
    assert all(c["id"].startswith("call_") for c in ex.cases)
    # the first prompt carries the source with line numbers and the Monty subset note
    first = script.prompts[0][1]
    assert "def apply_discount" in first and "Monty" not in first  # the note is in the instructions
    # the choice is made having seen every call with its outcome, and the code that made it
    seen = script.prompts[1][1]
    assert "apply_discount(100.0, 0.1) -> 90.0" in seen
    assert "apply_discount(-1.0, 0.1) raises ValueError: negative price" in seen
    assert 0 < ex.visible_bytes < 8000


def test_wrong_expected_values_in_the_answer_never_reach_the_cases(
    shop_config: Config, worker: Worker
) -> None:
    def choose(text: str) -> dict[str, Any]:
        calls = call_numbers(text)
        n = next(n for n, line in calls.items() if "(100.0, 0.1)" in line)
        # a confident model that restates (wrongly) what the call returns, in every field it can
        return {
            "cases": [
                {
                    "call": n,
                    "id": "basic",
                    "reason": "returns 85.0",
                    "expected": 85.0,
                    "raises": "KeyError",
                }
            ]
        }

    script = Scripted(
        [GOOD_PLAN], choose=choose, preface="The expected value for call basic is 85.0."
    )
    ex, _ = explore(shop_config, worker, script)
    assert ex.cases == [{"id": "basic", "inputs": [100.0, 0.1], "expected": 90.0}]


def test_syntax_errors_and_raising_snippets_go_back_to_the_model(
    shop_config: Config, worker: Worker
) -> None:
    bad = [
        "apply_discount(100.0, 0.1",
        "apply_discount(100.0, 0.1)\n1 / 0",
        "import os\nos.environ['HOME']",
        "print('hello', apply_discount(50.0, 0.5))\nx = apply_discount(8.0, 0.25)\nx * 2",
    ]
    fixed = [
        "for r in (0, 0.5, 1, 1.5):\n    try:\n        apply_discount(10.0, r)\n    except ValueError:\n        pass\n"
        "try:\n    apply_discount(-2.0, 0.5)\nexcept ValueError:\n    pass"
    ]
    script = Scripted([bad, fixed], choose=choose_all())
    ex, _ = explore(shop_config, worker, script)
    assert [p for p, _ in script.prompts] == ["run", "run", "choose"]
    assert ex.requests == 3
    seen = script.prompts[1][1]
    assert "apply_discount(100.0, 0.1" in seen  # its own code is in the conversation
    assert "snippet 1: (no call of the function)\n  error: SyntaxError" in seen
    assert "error: ZeroDivisionError: division by zero (line 2)" in seen
    assert "error: RuntimeError: 'os.environ' is not supported" in seen
    assert "printed: hello 25.0" in seen and "last expression: 12.0" in seen
    assert "Lines not reached yet:" in seen and "raise ValueError" in seen
    assert {c.get("raises") for c in ex.cases} >= {"ValueError", None}


def test_escape_attempts_record_nothing_and_the_exploration_goes_on(
    shop_config: Config, worker: Worker
) -> None:
    escapes = [
        "open('/etc/passwd').read()",
        "__import__('subprocess').run(['id'])",
        "().__class__.__bases__[0].__subclasses__()",
        "while True:\n    pass",
        "apply_discount(100.0, 0.1)",
    ]
    script = Scripted([escapes, ["apply_discount(1.0, 0.5)"]], choose=choose_all())
    ex, recorder = explore(shop_config, worker, script)
    assert len(ex.sandbox_errors) == 4
    assert [r.args for r in recorder.records][:1] == [(100.0, 0.1)]
    assert ex.cases


def test_calls_the_model_invents_are_ignored(shop_config: Config, worker: Worker) -> None:
    script = Scripted(
        [GOOD_PLAN], choose={"cases": [{"call": 999, "id": "ghost"}, {"call": 1, "id": "real"}]}
    )
    ex, _ = explore(shop_config, worker, script)
    assert [c["id"] for c in ex.cases] == ["real"]
    assert any("do not exist" in n for n in ex.notes)


def test_global_evaluators_are_kept_only_when_they_hold_on_every_call(
    shop_config: Config, worker: Worker
) -> None:
    evals = [
        {"name": "is_float", "type": "float"},
        {"name": "non_negative", "assertion": "output >= 0"},
        {"name": "always_ninety", "assertion": "output == 90.0"},
        {"name": "is_int", "type": "int"},
    ]
    script = Scripted([GOOD_PLAN], choose=lambda t: {**choose_all()(t), "evaluators": evals})
    ex, _ = explore(shop_config, worker, script)
    assert ex.evaluators == {
        "IsFloat": {"type": "float"},
        "NonNegative": {"assertion": "output >= 0"},
    }


def test_cached_answers_replay_without_requests(shop_config: Config, worker: Worker) -> None:
    script = Scripted([GOOD_PLAN], choose=choose_all())
    first, _ = explore(shop_config, worker, script)
    again = Scripted([], choose=None)
    second, _ = explore(shop_config, worker, again, cached=first.answers)
    assert again.prompts == [] and second.requests == 0
    assert second.cases == first.cases


def test_a_budget_stop_keeps_the_calls_already_recorded(
    shop_config: Config, worker: Worker
) -> None:
    script = Scripted([GOOD_PLAN], choose=choose_all())
    ex, recorder = explore(shop_config, worker, script, budget=ModelBudget("scripted", max_requests=1))
    assert [p for p, _ in script.prompts] == ["run"]
    assert ex.requests == 1 and "max-model-requests 1" in ex.stopped
    # the snippets already paid for ran; their calls become cases, chosen offline
    assert len(recorder.records) == 5
    assert {c.get("raises") for c in ex.cases} == {"ValueError", None}
    assert any("chosen offline" in n for n in ex.notes)
