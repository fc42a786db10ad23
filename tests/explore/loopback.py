"""Loopback model servers: OpenAI chat completions and Anthropic messages, scripted by status.

The script sees each request as ``Seen`` (the API, the raw body, the text of every message
and the tool names offered) and answers ``(status, payload)``: for a 200 the payload is
``(tool_name, arguments)``, the tool call the "model" makes, or ``Raw(body)``, a body sent as
it is (a malformed answer); otherwise an error body. A request with ``"stream": true`` (the
Anthropic SDK streams whenever a real Claude model's ``max_tokens`` is large) is answered
with server-sent events, as the real APIs do, usage included.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any]


@dataclass
class Raw:
    """A 200 body sent as it is, whatever the API expects (``{"choices": []}``)."""

    body: dict[str, Any]


@dataclass
class Seen:
    api: str  # "openai" | "anthropic"
    body: dict[str, Any]
    text: str
    tools: list[str]

    @property
    def can_run(self) -> bool:
        return "run_snippets" in self.tools

    @property
    def output_tool(self) -> str:
        return next(t for t in self.tools if t != "run_snippets")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            if k in ("content", "text", "arguments", "input", "code", "snippets") or isinstance(
                v, (list, dict)
            ):
                yield from _strings(v)


def _seen(api: str, body: dict[str, Any]) -> Seen:
    tools = [(t.get("function") or {}).get("name") or t.get("name") for t in body.get("tools", [])]
    return Seen(api, body, "\n".join(_strings(body.get("messages", []))), [str(t) for t in tools])


def _openai(tool: str, args: dict[str, Any], prompt_chars: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": 0,
        "model": "loopback-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{prompt_chars}",
                            "type": "function",
                            "function": {"name": tool, "arguments": json.dumps(args)},
                        }
                    ],
                },
            }
        ],
        "usage": {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": 50,
            "total_tokens": prompt_chars // 4 + 50,
        },
    }


def _anthropic(tool: str, args: dict[str, Any], prompt_chars: int) -> dict[str, Any]:
    return {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": "claude-loopback",
        "content": [
            {"type": "tool_use", "id": f"toolu_{prompt_chars}", "name": tool, "input": args}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_chars // 4, "output_tokens": 50},
    }


def _events(api: str, message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The answer as the stream of events the real API sends for it."""
    if api == "anthropic":
        usage = message["usage"]
        start = {**message, "content": [], "stop_reason": None}
        start["usage"] = {"input_tokens": usage["input_tokens"], "output_tokens": 1}
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": start})
        ]
        for i, block in enumerate(message["content"]):
            args = json.dumps(block["input"])
            events += [
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {**block, "input": {}},
                    },
                ),
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": args},
                    },
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": i}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return events
    choice = message["choices"][0]
    head = {k: message[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    calls = [{**c, "index": i} for i, c in enumerate(choice["message"]["tool_calls"])]
    return [
        (
            "",
            {
                **head,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "tool_calls": calls},
                        "finish_reason": None,
                    }
                ],
            },
        ),
        (
            "",
            {
                **head,
                "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
            },
        ),
        ("", {**head, "choices": [], "usage": message["usage"]}),
    ]


ROUTES = {"/v1/chat/completions": ("openai", _openai), "/v1/messages": ("anthropic", _anthropic)}


@contextmanager
def serve(script: Callable[[Seen], Reply]) -> Iterator[tuple[str, list[Seen]]]:
    """Yields (base_url, requests seen); both APIs are served under ``base_url``."""
    seen: list[Seen] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            route = ROUTES.get(self.path)
            if route is None:
                status, payload = 404, {"error": {"message": f"no route {self.path}"}}
            else:
                api, render = route
                request = _seen(api, body)
                seen.append(request)
                status, payload = script(request)
                if status == 200 and isinstance(payload, Raw):
                    payload = payload.body
                elif status == 200:
                    tool, args = payload
                    payload = render(tool, args, len(json.dumps(body.get("messages"))))
                    if body.get("stream"):
                        self._stream(_events(api, payload), api)
                        return
                elif api == "anthropic":
                    err = payload.get("error", {})
                    payload = {
                        "type": "error",
                        "error": {
                            "type": err.get("type", "api_error"),
                            "message": err.get("message", ""),
                        },
                    }
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            if status == 429:
                self.send_header("retry-after", "0")
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, events: list[tuple[str, dict[str, Any]]], api: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for name, data in events:
                head = f"event: {name}\n" if name else ""
                self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
            if api == "openai":
                self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
