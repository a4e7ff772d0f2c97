"""``POST /runs/TOKEN/conversation``: a command agent hands over its answer to the user's last
message and gets the next one (``trajguard.runner._conversation``).

Request ``{"answer": "..."}``; answer ``{"message": "..."}``, or ``{"message": null,
"stop_reason": "user_done" | "max_turns" | "error"}`` once the conversation is over.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from trajguard.capture.wire._openai import error_body
from trajguard.capture.wire._session import WireSession

__all__ = ["turn_handler"]

_MAX_ANSWER = 1024 * 1024


def turn_handler(
    session_of: Callable[[web.Request], WireSession | None],
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The route's handler, finding each request's run with ``session_of``."""

    async def handle(request: web.Request) -> web.Response:
        return await _next_turn(session_of(request), request)

    return handle


async def _next_turn(session: WireSession | None, request: web.Request) -> web.Response:
    """The user's next message for the session's run (see the module docstring)."""
    if session is None or session.conversation is None:
        message = (
            "no conversation at this address: the run finished, timed out, or its scenario "
            "has no turns: or user:"
        )
        return _error(404, message, code="run_not_found")
    raw = await request.content.read(_MAX_ANSWER + 1)
    if len(raw) > _MAX_ANSWER:
        return _error(413, f"the answer is larger than {_MAX_ANSWER} bytes", code="too_large")
    try:
        body: Any = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        return _error(400, f"the body is not JSON: {exc}", code="invalid_json")
    if not isinstance(body, dict) or not isinstance(body.get("answer"), str):
        return _error(400, 'send {"answer": "<your answer to the last message>"}', code="answer")
    return web.json_response(await asyncio.wrap_future(session.conversation(body["answer"])))


def _error(status: int, message: str, *, code: str) -> web.Response:
    body = error_body(message, kind="invalid_request_error", param="answer", code=code)
    return web.json_response(body, status=status)
