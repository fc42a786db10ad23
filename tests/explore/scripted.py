"""A FunctionModel that answers like a real model: it reads the prompt and replies by phase."""

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
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


def prompt_text(messages: list[ModelMessage]) -> str:
    parts = []
    for m in messages:
        if isinstance(m, ModelRequest):
            parts += [str(p.content) for p in m.parts if isinstance(p, UserPromptPart)]
    return "\n".join(parts)


def phase(text: str) -> str:
    if "Recorded calls:" in text:
        return "choose"
    if "not reached yet" in text:
        return "coverage"
    return "plan"


def call_numbers(text: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^#(\d+) (.*)$", text, re.M)}


@dataclass
class Scripted:
    """Phase -> answer (a dict, or a callable of the prompt text); records every prompt."""

    plan: Any
    choose: Any
    coverage: Any = None
    prompts: list[tuple[str, str]] = field(default_factory=list)
    preface: str = ""  # text the model says before its tool call (real models do)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = prompt_text(messages)
        ph = phase(text)
        self.prompts.append((ph, text))
        answer = getattr(self, ph)
        if callable(answer):
            answer = answer(text)
        parts: list[Any] = []
        if self.preface:
            parts.append(TextPart(self.preface))
        parts.append(ToolCallPart(info.output_tools[0].name, answer))
        return ModelResponse(parts=parts)

    def model(self) -> FunctionModel:
        return FunctionModel(self, model_name="scripted")


def plan(*codes: str) -> dict[str, Any]:
    return {"snippets": [{"purpose": f"snippet {i}", "code": c} for i, c in enumerate(codes, 1)]}


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
