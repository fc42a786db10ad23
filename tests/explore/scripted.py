"""A FunctionModel that answers like a real model: it runs snippets, reads what they did, chooses."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


def prompt_text(messages: list[ModelMessage]) -> str:
    """Everything the model was shown: the user prompt and every tool output, in order."""
    parts = []
    for m in messages:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, (UserPromptPart, ToolReturnPart)):
                    parts.append(str(p.content))
    return "\n".join(parts)


def tool_outputs(messages: list[ModelMessage]) -> list[str]:
    return [
        str(p.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "run_snippets"
    ]


def call_numbers(text: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\s*#(\d+) (.*)$", text, re.M)}


@dataclass
class Scripted:
    """Snippet rounds, then a choice; each a value or a callable of the text seen so far.

    ``rounds[i]`` is a list of snippet codes (or a callable returning one). ``prompts``
    records (phase, text) for every request: ``run`` while it sends snippets, ``choose`` after.
    """

    rounds: list[Any]
    choose: Any
    prompts: list[tuple[str, str]] = field(default_factory=list)
    preface: str = ""  # text the model says before its tool call (real models do)
    stop_when_covered: bool = True  # skip later rounds once every line ran, as a model would

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = prompt_text(messages)
        done = len(tool_outputs(messages))
        covered = done > 0 and "Every line of the function has run." in tool_outputs(messages)[-1]
        more = done < len(self.rounds) and not (self.stop_when_covered and covered)
        parts: list[Any] = [TextPart(self.preface)] if self.preface else []
        if more and info.function_tools:
            codes = self.rounds[done]
            codes = codes(text) if callable(codes) else codes
            self.prompts.append(("run", text))
            parts.append(ToolCallPart("run_snippets", {"snippets": list(codes)}))
        else:
            answer = self.choose(text) if callable(self.choose) else self.choose
            self.prompts.append(("choose", text))
            parts.append(ToolCallPart(info.output_tools[0].name, answer))
        return ModelResponse(parts=parts)

    def model(self) -> FunctionModel:
        return FunctionModel(self, model_name="scripted")


def choose_all(limit: int = 8) -> Callable[[str], dict[str, Any]]:
    """Choose the first ``limit`` recorded calls, naming them by what they show."""

    def answer(text: str) -> dict[str, Any]:
        calls = call_numbers(text)
        return {
            "cases": [
                {
                    "call": n,
                    "id": f"call {n} " + ("raises" if " raises " in line else "returns"),
                    "reason": "covers it",
                }
                for n, line in list(calls.items())[:limit]
            ]
        }

    return answer
