"""The one module that talks to the model: building it, asking it, retrying, counting.

Imported only by the regeneration path, so ``codemode check`` never loads pydantic-ai.
Retries are ours (the OpenAI client's own are turned off) so every provider gets the same
policy: rate limits and server errors are retried with exponential backoff, honouring
``Retry-After``; anything else ends the function's exploration with a clear message.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from codemode.errors import FatalError
from codemode.explore.budget import Budget, BudgetExceeded

T = TypeVar("T", bound=BaseModel)

RETRY_ATTEMPTS = 4
RETRY_BASE_DELAY = 1.0  # seconds; doubled each attempt
RETRY_MAX_DELAY = 30.0


class ModelFailed(Exception):
    """The model could not deliver an answer; the message says why, in one line."""


@dataclass(frozen=True)
class Answer:
    output: Any
    requests: int
    input_tokens: int
    output_tokens: int


def model_label(model: Any) -> str:
    if isinstance(model, str):
        return model
    system = getattr(model, "system", None) or "model"
    return f"{system}:{getattr(model, 'model_name', type(model).__name__)}"


def build_model(model: Any, base_url: str | None) -> Any:
    """A pydantic-ai model from a model string (``openai:gpt-4.1-mini``) and an optional base URL."""
    if not isinstance(model, str):
        return model  # a Model instance (tests inject FunctionModel / TestModel)
    provider, sep, name = model.partition(":")
    if not sep:
        provider, name = "openai", model
    if base_url or provider in ("openai", "openai-chat"):
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        key = os.environ.get("OPENAI_API_KEY")
        if not key and not base_url:
            raise FatalError(
                f"--model {model}: OPENAI_API_KEY is not set; export it, or pass --base-url for "
                "an OpenAI-compatible server (a local Ollama: --base-url http://localhost:11434/v1)"
            )
        client = AsyncOpenAI(base_url=base_url, api_key=key or "unused", max_retries=0)
        return OpenAIChatModel(name, provider=OpenAIProvider(openai_client=client))
    return model


def _retryable(exc: BaseException) -> tuple[bool, float | None]:
    from pydantic_ai import exceptions as e

    if isinstance(exc, e.ModelQuotaExceededError):
        return False, None  # an exhausted quota does not come back by waiting
    status = getattr(exc, "status_code", None)
    retry_after = getattr(exc, "retry_after", None)
    if isinstance(
        exc,
        (
            e.ModelRateLimitError,
            e.ModelServerError,
            e.ModelConnectionError,
            e.ModelUnavailableError,
        ),
    ):
        return True, retry_after
    if (
        isinstance(exc, e.ModelHTTPError)
        and status is not None
        and (status == 429 or status >= 500)
    ):
        return True, retry_after
    return False, None


def _describe(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    detail = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        detail = str(err.get("message", "") if isinstance(err, dict) else err)
    elif body:
        detail = str(body)
    text = f"HTTP {status}" if status else type(exc).__name__
    msg = detail or str(exc)
    return f"{text}: {msg}"[:300]


async def ask(
    model: Any,
    instructions: str,
    prompt: str,
    output_type: type[T],
    budget: Budget,
    *,
    base_delay: float | None = None,
) -> Answer:
    """One structured answer, with retries; raises ModelFailed or BudgetExceeded."""
    from pydantic_ai import Agent, UsageLimits
    from pydantic_ai import exceptions as e

    agent: Agent[None, T] = Agent(
        model, output_type=output_type, instructions=instructions, retries=1
    )
    delay = RETRY_BASE_DELAY if base_delay is None else base_delay
    requests = input_tokens = output_tokens = 0
    last = ""
    for attempt in range(RETRY_ATTEMPTS):
        budget.reserve(1)
        remaining = budget.remaining_requests()
        limits = UsageLimits(request_limit=None if remaining is None else remaining + 1)
        try:
            result = await agent.run(prompt, usage_limits=limits)
        except BudgetExceeded:
            budget.settle(1, 0, 0, 0)
            raise
        except e.UsageLimitExceeded as exc:
            budget.settle(1, 1, 0, 0)
            raise BudgetExceeded(f"--max-model-requests reached ({exc})") from exc
        except (e.ModelAPIError, e.UnexpectedModelBehavior) as exc:
            # A failed HTTP request still counts: the provider may bill it, the cap must see it.
            budget.settle(1, 1, 0, 0)
            requests += 1
            ok, retry_after = _retryable(exc)
            last = _describe(exc)
            if not ok or attempt == RETRY_ATTEMPTS - 1:
                why = "gave up after retries" if ok else "not retried"
                raise ModelFailed(f"the model failed ({last}; {why})") from exc
            wait = min(
                RETRY_MAX_DELAY, retry_after if retry_after is not None else delay * 2**attempt
            )
            await asyncio.sleep(wait)
            continue
        u = result.usage
        if not hasattr(u, "requests"):  # a method before pydantic-ai made it a property
            u = u()
        budget.settle(1, u.requests, u.input_tokens, u.output_tokens)
        return Answer(
            result.output,
            requests + u.requests,
            input_tokens + u.input_tokens,
            output_tokens + u.output_tokens,
        )
    raise ModelFailed(f"the model failed ({last})")
