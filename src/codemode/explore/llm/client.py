"""The one module that talks to the model: building it, retrying, counting what went over the wire.

Imported only by the regeneration path, so ``codemode check`` never loads pydantic-ai.

Every pydantic-ai model string works (``openai:gpt-4.1-mini``, ``anthropic:claude-haiku-4-5``,
``google:gemini-2.5-flash``, ``ollama:llama3.1`` ...). Problems a user fixes before running
(an unknown provider, a missing SDK or key) are a ``FatalError`` of one line: exit 2.

Retries are ours, for every provider: the SDK's own are turned off (``max_retries=0`` on each
request), so the request count is what went over the wire. ``RetryingModel`` wraps the model
pydantic-ai talks to; rate limits and server errors are retried with exponential backoff
honouring ``Retry-After``; a refused connection stops the whole run (``Unreachable``): the
next function would only wait for the same closed port.

A ``base_url`` that comes from the repository's own ``[tool.codemode]`` is chosen by whoever can
open a pull request: it gets only the key named for it (``CODEMODE_BASE_URL_KEY``), never the
provider's default key (``OPENAI_API_KEY`` must not travel to a host the repository picked).
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from codemode.errors import FatalError
from codemode.explore.llm.budget import ModelBudget

if TYPE_CHECKING:  # pydantic-ai loads when a model explores, not when this module does
    from pydantic_ai.models import Model

RETRY_ATTEMPTS = 4
RETRY_BASE_DELAY = 1.0  # seconds; doubled each attempt
RETRY_MAX_DELAY = 30.0
BASE_URL_KEY = "CODEMODE_BASE_URL_KEY"
_EXAMPLES = (
    "openai:gpt-4.1-mini, anthropic:claude-haiku-4-5, google:gemini-2.5-flash, ollama:llama3.1"
)


class ModelFailed(Exception):
    """The model could not deliver an answer; the message says why, in one line."""


class Unreachable(Exception):
    """The model's server could not be reached: the run stops here (exit 2)."""


@dataclass
class Tally:
    """Requests and tokens of one function's exploration, as they went over the wire."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


# The exploration of each function runs in its own task, which copies the context: the
# wrapper counts into the tally of the function that asked.
current_tally: contextvars.ContextVar[Tally | None] = contextvars.ContextVar(
    "codemode_tally", default=None
)


def model_label(model: object) -> str:
    if isinstance(model, str):
        return model
    inner = getattr(model, "wrapped", model)
    system = getattr(inner, "system", None) or "model"
    return f"{system}:{getattr(inner, 'model_name', type(inner).__name__)}"


def _fatal(spec: str, what: str) -> FatalError:
    return FatalError(f"--model {spec}: {what}")


def _first_sentence(text: str) -> str:
    text = " ".join(str(text).split())
    m = re.match(r"(.+?\.)(\s|$)", text)
    return (m.group(1) if m else text)[:240]


def _split(spec: str, base_url: str | None) -> tuple[str, str]:
    provider, sep, name = spec.partition(":")
    if sep and provider and name:
        return provider, name
    if not sep and base_url:
        return "openai-chat", spec  # `--model llama3.1 --base-url ...`: an OpenAI-compatible server
    raise _fatal(spec, f"name a provider, as pydantic-ai model strings do (e.g. {_EXAMPLES})")


def _provider_class(spec: str, provider: str) -> Any:
    from pydantic_ai.providers import infer_provider_class

    try:
        return infer_provider_class(provider)
    except ValueError:
        raise _fatal(
            spec,
            f"unknown provider {provider!r}; use a pydantic-ai model string (e.g. {_EXAMPLES})",
        ) from None
    except ImportError as exc:
        raise _missing_sdk(spec, provider, exc) from None


def _missing_sdk(spec: str, provider: str, exc: ImportError) -> FatalError:
    m = re.search(r"pydantic-ai-slim\[([\w,-]+)\]", str(exc))
    extra = m.group(1) if m else provider
    common = "openai", "anthropic", "google"
    how = (
        "pip install 'codemode-action[llm]'"
        if extra in common
        else f"pip install 'pydantic-ai-slim[{extra}]' (codemode-action[llm] brings {', '.join(common)})"
    )
    return _fatal(spec, f"the {provider} SDK is not installed; {how}")


def build_model(
    model: object,
    base_url: str | None = None,
    *,
    base_url_origin: str = "config",
    env: Mapping[str, str] | None = None,
) -> Model:
    """A pydantic-ai model from a model string and an optional base URL; FatalError on bad setup.

    ``base_url_origin`` is ``flag`` or ``env`` when the user chose the URL, ``config`` when
    it came from the repository's pyproject.toml (then only ``CODEMODE_BASE_URL_KEY`` is sent).
    """
    if not isinstance(model, str):
        return cast("Model", model)  # a Model instance (tests inject FunctionModel / TestModel)
    env = os.environ if env is None else env
    if base_url:
        probe(base_url, env)  # before importing the SDKs: a closed port fails in milliseconds
    from pydantic_ai.exceptions import UserError

    provider, name = _split(model, base_url)
    cls = _provider_class(model, provider)
    try:
        if not base_url:
            from pydantic_ai.models import infer_model

            return infer_model(f"{provider}:{name}")
        return _at_base_url(model, provider, name, cls, base_url, base_url_origin, env)
    except UserError as exc:
        raise _fatal(model, _first_sentence(str(exc))) from None
    except ImportError as exc:
        raise _missing_sdk(model, provider, exc) from None


def probe(base_url: str, env: Mapping[str, str]) -> None:
    """Refuse a base URL nothing listens on, with the URL; skipped behind a proxy."""
    import socket
    from urllib.parse import urlsplit

    if any(
        env.get(k)
        for k in (
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        )
    ):
        return
    try:
        parts = urlsplit(base_url)
        host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise FatalError(f"--base-url {base_url}: not a URL ({exc})") from None
    if not host or parts.scheme not in ("http", "https"):
        raise FatalError(f"--base-url {base_url}: write it as http(s)://host[:port]/path")
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        raise FatalError(
            f"cannot reach the model at {base_url} ({exc.strerror or exc}); is the server "
            "running and is --base-url (or CODEMODE_BASE_URL) right?"
        ) from None


def _at_base_url(
    spec: str,
    provider: str,
    name: str,
    cls: Any,  # a provider class, chosen at run time
    base_url: str,
    origin: str,
    env: Mapping[str, str],
) -> Model:
    from pydantic_ai.exceptions import UserError

    params = inspect.signature(cls.__init__).parameters
    if "base_url" not in params or "api_key" not in params:
        raise _fatal(spec, f"--base-url is not supported for provider {provider!r}")
    key = env.get(BASE_URL_KEY) or None
    if key is None and origin == "config":
        key = "unused"  # a URL the repository chose never gets the provider's default key
    try:
        prov = cls(base_url=base_url, api_key=key)
    except UserError:  # no default key set: a local server (Ollama) needs none
        prov = cls(base_url=base_url, api_key="unused")
    if provider in ("openai", "openai-chat"):
        # OpenAI-compatible servers (Ollama, vLLM, LiteLLM...) speak chat completions.
        from pydantic_ai.models.openai import OpenAIChatModel

        return OpenAIChatModel(name, provider=prov)
    from pydantic_ai.models import infer_model

    return infer_model(f"{provider}:{name}", provider_factory=lambda _: prov)


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
    msg = " ".join((detail or str(exc)).split())
    return f"{text}: {msg}"[:300]


def _unreachable(exc: BaseException) -> bool:
    from pydantic_ai import exceptions as e

    return isinstance(exc, e.ModelConnectionError) and getattr(exc, "phase", None) in (
        "connect",
        "pool",
    )


def _settings(model_settings: Any, budget: ModelBudget) -> Any:
    """The SDK's retries off; a request never outlives ``--max-seconds`` (its timeout, #22)."""
    settings: Any = {**(model_settings or {}), "max_retries": 0}
    left = budget.seconds_left()
    if left is not None:
        settings["timeout"] = max(0.5, left)
    return settings


def _http_error(model: Any, exc: BaseException, tally: Tally, attempt: int) -> float:
    """A failed HTTP request: the seconds to wait before the next attempt, or raise."""
    # It still counts: the provider may bill it, the cap must see it.
    model.budget.settle(1, 1, 0, 0)
    tally.requests += 1
    if _unreachable(exc):
        url = model.wrapped.base_url or "the provider"
        raise Unreachable(
            f"cannot reach the model at {url} ({_describe(exc)}); is the server "
            "running and is --base-url (or CODEMODE_BASE_URL) right?"
        ) from None
    ok, retry_after = _retryable(exc)
    if not ok or attempt == RETRY_ATTEMPTS - 1:
        why = "gave up after retries" if ok else "not retried"
        raise ModelFailed(f"the model failed ({_describe(exc)}; {why})") from None
    delay = min(
        RETRY_MAX_DELAY, retry_after if retry_after is not None else model.base_delay * 2**attempt
    )
    left = model.budget.seconds_left()
    return delay if left is None else min(delay, left)


def _unreadable(budget: ModelBudget, tally: Tally, exc: BaseException) -> ModelFailed:
    """The server answered, but not in a form the client could read (``choices: []``, a
    stream cut short): counted, as the server saw it; the function keeps what it recorded."""
    budget.settle(1, 1, 0, 0)
    tally.requests += 1
    return ModelFailed(
        f"the model's answer could not be read ({type(exc).__name__}: "
        f"{_first_sentence(str(exc))[:200]})"
    )


def _make_retrying_model() -> type:
    from pydantic_ai.exceptions import ModelAPIError, UnsupportedSettingWarning
    from pydantic_ai.models.wrapper import WrapperModel

    class RetryingModel(WrapperModel):
        """One retry policy for every provider; every attempt is counted and charged."""

        def __init__(self, wrapped: Any, budget: ModelBudget, base_delay: float) -> None:
            super().__init__(wrapped)
            self.budget = budget
            self.base_delay = base_delay

        async def request(self, messages: Any, model_settings: Any, params: Any) -> Any:
            tally = current_tally.get() or Tally()
            for attempt in range(RETRY_ATTEMPTS):
                self.budget.reserve(1)
                settings = _settings(model_settings, self.budget)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UnsupportedSettingWarning)
                        response = await self.wrapped.request(messages, settings, params)
                except ModelAPIError as exc:
                    await asyncio.sleep(_http_error(self, exc, tally, attempt))
                    continue
                except (asyncio.CancelledError, KeyboardInterrupt):
                    self.budget.settle(1, 0, 0, 0)
                    raise
                except Exception as exc:
                    raise _unreadable(self.budget, tally, exc) from None
                u = response.usage
                self.budget.settle(1, 1, u.input_tokens, u.output_tokens)
                tally.requests += 1
                tally.input_tokens += u.input_tokens
                tally.output_tokens += u.output_tokens
                return response
            raise ModelFailed("the model failed (no attempt left)")

    return RetryingModel


def retrying(model: Model, budget: ModelBudget, base_delay: float | None = None) -> Model:
    """``model`` behind our retry policy and request accounting (a pydantic-ai Model)."""
    from pydantic_ai.models import infer_model

    cls = _make_retrying_model()
    delay = RETRY_BASE_DELAY if base_delay is None else base_delay
    wrapped: Model = cls(infer_model(model), budget, delay)
    return wrapped
