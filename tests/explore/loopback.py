"""Loopback model servers: OpenAI chat completions and Anthropic messages, scripted by status.

The script sees each request as ``Seen`` (the API, the raw body, the text of every message
and the tool names offered) and answers ``(status, payload)``: for a 200 the payload is
``(tool_name, arguments)``, the tool call the "model" makes; otherwise an error body.
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
                if status == 200:
                    tool, args = payload
                    payload = render(tool, args, len(json.dumps(body.get("messages"))))
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

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
