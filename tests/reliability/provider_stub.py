"""A fault-injecting OpenAI-compatible chat server on 127.0.0.1, for the reliability harness.

``FaultyProvider`` answers ``POST .../chat/completions``: each request takes the next fault of
its script (then answers normally), so a test says "429 with Retry-After 2, then succeed". The
faults are what real providers do: rate limits with ``Retry-After``, 5xx, a hang, a connection
cut before the answer, a body that is not JSON, an empty ``choices`` list, a tool call with
arguments that are not JSON, a huge body, a 401 that echoes the key it refused. It records
every request (time, path, headers, body). Standard library only, one thread per connection.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = (
    "ok",  # a normal answer, to script "succeed, then fail"
    "rate_limited",
    "server_error",
    "hang",
    "cut",
    "invalid_json",
    "empty_choices",
    "bad_tool_arguments",
    "huge",
    "echo_key",
)


@dataclass(frozen=True, kw_only=True)
class Fault:
    """One scripted answer: ``kind`` (one of :data:`FAULTS`) and its details."""

    kind: str
    reply: str | None = None
    """With ``ok``: the text of this one answer (otherwise the server's ``answer``)."""
    retry_after: str | None = None
    status: int = 503
    hang_s: float = 30.0
    huge_bytes: int = 4_000_000

    def __post_init__(self) -> None:
        assert self.kind in FAULTS, self.kind


@dataclass
class Seen:
    at: float
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


def completion(content: str | None = "ok", *, tool_arguments: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    finish = "stop"
    if tool_arguments is not None:
        message["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "calculator", "arguments": tool_arguments},
            }
        ]
        finish = "tool_calls"
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "stub",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }


@dataclass
class FaultyProvider:
    """The server's script and what it saw; ``api_base`` once started."""

    script: list[Fault] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    api_base: str = ""
    answer: dict[str, Any] = field(default_factory=completion)
    release: threading.Event = field(default_factory=threading.Event)

    def then(self, *faults: Fault) -> FaultyProvider:
        self.script.extend(faults)
        return self

    def _next(self) -> Fault | None:
        return self.script.pop(0) if self.script else None


def _handler(state: FaultyProvider, lock: threading.Lock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
            with lock:
                state.seen.append(Seen(time.monotonic(), self.path, dict(self.headers), body))
                fault = state._next()
            self._answer(fault)

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def _answer(self, fault: Fault | None) -> None:
            if fault is None:
                self._send(200, json.dumps(state.answer).encode())
                return
            kind = fault.kind
            if kind == "ok":
                answer = state.answer if fault.reply is None else completion(fault.reply)
                self._send(200, json.dumps(answer).encode())
            elif kind == "rate_limited":
                headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                error = {"error": {"message": "Rate limit reached", "type": "rate_limit"}}
                self._send(429, json.dumps(error).encode(), headers)
            elif kind == "server_error":
                headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                error = {"error": {"message": "upstream failed", "type": "server_error"}}
                self._send(fault.status, json.dumps(error).encode(), headers)
            elif kind == "hang":
                state.release.wait(fault.hang_s)  # bounded: the test ends it by setting release
                self.close_connection = True
            elif kind == "cut":
                self.close_connection = True
                self.connection.close()
            elif kind == "invalid_json":
                self._send(200, b'{"id": "cmpl-1", "choices": [')
            elif kind == "empty_choices":
                self._send(200, json.dumps({**state.answer, "choices": []}).encode())
            elif kind == "bad_tool_arguments":
                payload = completion(None, tool_arguments="{'expression': 17 * 23")
                self._send(200, json.dumps(payload).encode())
            elif kind == "huge":
                payload = completion("x" * fault.huge_bytes)
                self._send(200, json.dumps(payload).encode())
            elif kind == "echo_key":
                key = self.headers.get("Authorization", "").removeprefix("Bearer ")
                error = {
                    "error": {
                        "message": f"Incorrect API key provided: {key}. You can find your API "
                        "key at https://platform.example/account/api-keys.",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                }
                self._send(401, json.dumps(error).encode())

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def faulty_provider() -> Iterator[FaultyProvider]:
    """Start the stub on a free port of 127.0.0.1; stop it (and release hangs) afterwards."""
    state = FaultyProvider()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state, threading.Lock()))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.api_base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
