"""A loopback OpenAI-compatible server: /v1/chat/completions with tool calls, scripted by status."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, dict[str, Any]]  # (status, body); a 200 body is the tool-call arguments


def completion(tool: str, args: dict[str, Any], prompt_chars: int) -> dict[str, Any]:
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
                            "id": "call_1",
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


@contextmanager
def serve(script: Callable[[dict[str, Any]], Reply]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Yields (base_url, requests seen); ``script`` maps a request body to (status, body)."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            seen.append(body)
            if self.path != "/v1/chat/completions":
                status, payload = 404, {"error": {"message": f"no route {self.path}"}}
            else:
                status, payload = script(body)
                if status == 200:
                    tool = body["tools"][0]["function"]["name"]
                    payload = completion(tool, payload, len(json.dumps(body["messages"])))
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


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "user")
