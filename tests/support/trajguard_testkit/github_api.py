"""A stand-in for GitHub's REST API on 127.0.0.1: a pull request's comments, listed page by
page with a ``Link`` header, created and updated, every request recorded (with the token it
carried) so a test can say what the client did."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    authorization: str | None
    body: Any = None


@dataclass
class FakeGitHub:
    """The server's state: comments per ``owner/name#pr``, and what it was asked."""

    url: str = ""
    comments: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    per_page: int = 2  # small pages, so a few comments already need the Link header
    refuse: int | None = None  # answer every request with this HTTP status
    redirect: str | None = None  # answer every request with a redirect to this address
    next_id: int = 1000

    def seed(self, repo: str, pr: int, *bodies: str) -> None:
        for body in bodies:
            self._add(f"{repo}#{pr}", body)

    def _add(self, key: str, body: str) -> dict[str, Any]:
        self.next_id += 1
        comment = {
            "id": self.next_id,
            "body": body,
            "html_url": f"https://github.example/{key.replace('#', '/pull/')}"
            f"#issuecomment-{self.next_id}",
        }
        self.comments.setdefault(key, []).append(comment)
        return comment

    def on(self, repo: str, pr: int) -> list[dict[str, Any]]:
        return self.comments.get(f"{repo}#{pr}", [])


def _handler(state: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def _answer(self, status: int, payload: Any, link: str | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if link:
                self.send_header("Link", link)
            self.end_headers()
            self.wfile.write(data)

        def _handle(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            parts = urlsplit(self.path)
            state.requests.append(
                Request(method, parts.path, self.headers.get("Authorization"), body)
            )
            if state.redirect is not None:
                self.send_response(302)
                self.send_header("Location", state.redirect + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if state.refuse is not None:
                self._answer(state.refuse, {"message": "Resource not accessible by integration"})
                return
            words = parts.path.strip("/").split("/")
            if method == "GET" and len(words) == 6 and words[3] == "issues":
                key = f"{words[1]}/{words[2]}#{words[4]}"
                page = int(parse_qs(parts.query).get("page", ["1"])[0])
                everything = state.comments.get(key, [])
                start = (page - 1) * state.per_page
                link = None
                if start + state.per_page < len(everything):
                    link = f'<{state.url}{parts.path}?per_page=30&page={page + 1}>; rel="next"'
                self._answer(200, everything[start : start + state.per_page], link)
            elif method == "POST" and len(words) == 6 and words[3] == "issues":
                key = f"{words[1]}/{words[2]}#{words[4]}"
                self._answer(201, state._add(key, body["body"]))
            elif method == "PATCH" and len(words) == 6 and words[4] == "comments":
                found = [
                    c for cs in state.comments.values() for c in cs if c["id"] == int(words[5])
                ]
                if not found:
                    self._answer(404, {"message": "Not Found"})
                    return
                found[0]["body"] = body["body"]
                self._answer(200, found[0])
            else:
                self._answer(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PATCH(self) -> None:
            self._handle("PATCH")

    return Handler


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    """A :class:`FakeGitHub` serving on 127.0.0.1 (its ``url`` is the API's base)."""
    state = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
