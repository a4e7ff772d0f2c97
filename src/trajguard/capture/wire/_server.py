"""The wire endpoint: an OpenAI-compatible chat-completions server on 127.0.0.1 for a batch.

It runs an aiohttp application on an event loop of its own, in a daemon thread: a run whose
agent blocks the batch's event loop (a sync framework called from an ``async def``) still
reaches its model, and the endpoint's work never waits on the batch. Each run gets a
:class:`~trajguard.capture.wire.WireSession` with a base URL of its own,
``http://127.0.0.1:PORT/runs/TOKEN/v1``: requests there are checked (and rewritten for the
embedded model, :mod:`._request`), forwarded through the session's forwarder, answered in the
OpenAI format (streamed when asked) and recorded as that run's calls. A refused request is
answered with an OpenAI-style error naming the field, and recorded as a failed call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import threading
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, TypeVar

from aiohttp import web

from trajguard.capture._types import LLMResponse
from trajguard.capture.wire._conversation import turn_handler
from trajguard.capture.wire._faults import INJECTED, distort_answer, failure_of, mark
from trajguard.capture.wire._openai import completion_body, error_body, stream_events
from trajguard.capture.wire._request import RequestShapeError, WireRequest, parse_request
from trajguard.capture.wire._session import Forward, WireSession
from trajguard.capture.zerocode import CallRecord, normalize_messages
from trajguard.errors import InfrastructureError, ModelRequestError, ModelUnavailable
from trajguard.faults import MODEL_CALLS, FaultSpec, ToolFaults

__all__ = ["WireServer"]

_T = TypeVar("_T")
_MAX_BODY = 64 * 1024 * 1024
_START_TIMEOUT_S = 30.0
_CHAT = ("/runs/{token}/v1/chat/completions", "/runs/{token}/chat/completions")


class WireServer:
    """The endpoint of one batch: start it, :meth:`open` a session per run, stop it.

    Also a context manager (``with WireServer() as wire:``).

    Args:
        host: the interface to bind; loopback only.
        on_stop: awaited on the endpoint's loop before it closes (e.g. to close the HTTP
            clients the forwarders opened on it).
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        on_stop: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.host = host
        self._on_stop = on_stop
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sessions: dict[str, WireSession] = {}
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self.upstream_errors = 0
        """Model calls that failed, over every session (the batch keeps the server log then)."""

    def __repr__(self) -> str:
        return f"WireServer({self.root_url if self._port else 'stopped'})"

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` while running."""
        if self._port is None:
            raise RuntimeError("the wire endpoint is not started")
        return f"http://{self.host}:{self._port}"

    def start(self) -> WireServer:
        """Start serving (a no-op when running).

        Raises:
            InfrastructureError: the endpoint could not bind or start.
        """
        if self._thread is not None and self._thread.is_alive():
            return self
        ready = threading.Event()
        self._error = None
        self._thread = threading.Thread(
            target=self._serve, args=(ready,), name="trajguard-wire", daemon=True
        )
        self._thread.start()
        if not ready.wait(_START_TIMEOUT_S) or self._error is not None:
            self.stop()
            raise InfrastructureError(f"the wire endpoint did not start: {self._error!r}")
        return self

    def stop(self) -> None:
        """Stop serving; sessions still open are closed (their calls stay recorded)."""
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop already closed
                loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=_START_TIMEOUT_S)
        self._thread = None
        self._port = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def open(
        self,
        *,
        forward: Forward,
        model: str,
        embedded: bool,
        faults: ToolFaults | None = None,
    ) -> WireSession:
        """A session for one run: its own base URL, its calls recorded apart from the others.

        Args:
            forward: sends a checked request to the run's model (runs on the endpoint's loop).
            model: the run's model string (recorded with each call).
            embedded: rewrite requests for the embedded llama.cpp server.
            faults: the run's faults; its model faults are injected into its calls.
        """
        token = secrets.token_urlsafe(12)
        session = WireSession(
            token=token,
            base_url=f"{self.root_url}/runs/{token}/v1",
            forward=forward,
            model=model,
            embedded=embedded,
            faults=faults,
        )
        with self._lock:
            self._sessions[token] = session
        return session

    async def close(self, session: WireSession) -> None:
        """Stop routing to ``session``; calls in flight are cancelled and recorded as such.

        Awaitable from any event loop; returns when the session's records are final.
        """
        session.closed = True
        with self._lock:
            self._sessions.pop(session.token, None)
        loop = self._loop
        if loop is None or loop.is_closed() or not loop.is_running():
            return
        done = asyncio.run_coroutine_threadsafe(_cancel(session), loop)
        await asyncio.wrap_future(done)

    async def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Run ``coroutine`` on the endpoint's event loop and await its result from any loop
        (cancelling the wait cancels it there too)."""
        loop = self._loop
        if loop is None or not loop.is_running():
            coroutine.close()
            raise InfrastructureError("the wire endpoint is not running")
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, loop))

    # --- the server thread -------------------------------------------------------------

    def _serve(self, ready: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        runner = web.AppRunner(self._app(), access_log=None, handle_signals=False)
        try:
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, self.host, 0)
            loop.run_until_complete(site.start())
            self._port = int(runner.addresses[0][1])
        except BaseException as exc:  # handed to start(), which raises it
            self._error = exc
            ready.set()
            loop.close()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            for session in list(self._sessions.values()):
                loop.run_until_complete(_cancel(session))
            loop.run_until_complete(runner.cleanup())
            if self._on_stop is not None:
                loop.run_until_complete(self._on_stop())
            _close(loop)

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=_MAX_BODY)
        for path in _CHAT:
            app.router.add_post(path, self._chat)
        app.router.add_get("/runs/{token}/v1/models", self._models)
        app.router.add_post("/runs/{token}/conversation", turn_handler(self._session))
        app.router.add_route("*", "/{tail:.*}", self._unknown)
        return app

    def _session(self, request: web.Request) -> WireSession | None:
        with self._lock:
            return self._sessions.get(request.match_info.get("token", ""))

    async def _unknown(self, request: web.Request) -> web.Response:
        return _error(
            404,
            f"{request.method} {request.path} is not served: the wire endpoint serves "
            "POST <base_url>/chat/completions (chat completions, streaming included) and "
            "GET <base_url>/models; clients of the Responses API must use chat completions "
            "(openai-agents: set_default_openai_api('chat_completions'))",
            param="path",
            code="unknown_url",
        )

    async def _models(self, request: web.Request) -> web.Response:
        session = self._session(request)
        if session is None:
            return _no_run()
        model = {"id": session.model, "object": "model", "created": 0, "owned_by": "trajguard"}
        return web.json_response({"object": "list", "data": [model]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request)
        if session is None:
            return _no_run()
        task = asyncio.current_task()
        if task is not None:
            session._tasks.add(task)
        try:
            return await self._exchange(session, request)
        finally:
            if task is not None:
                session._tasks.discard(task)

    async def _exchange(self, session: WireSession, request: web.Request) -> web.StreamResponse:
        started = datetime.now(UTC)
        try:
            body = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError) as exc:
            body = None
            problem: RequestShapeError | None = RequestShapeError("body", f"not JSON: {exc}")
        else:
            problem = None
        try:
            if problem is not None:
                raise problem
            parsed = parse_request(body, embedded=session.embedded)
        except RequestShapeError as exc:
            session.add(_refused(session, body, started, exc))
            return _error(400, str(exc), param=exc.param, code="unsupported_field")
        record = session.add(_record(session, parsed, started))
        spec = session.faults.next_fault(MODEL_CALLS) if session.faults is not None else None
        refused = _injected_failure(session, record, spec)
        if refused is not None:
            return refused
        try:
            response = await session.forward(parsed)
        except asyncio.CancelledError:
            _fail(record, "Cancelled", "the run ended before the model answered")
            raise
        except Exception as exc:
            status, code = _status_of(exc)
            _fail(record, type(exc).__name__, str(exc))
            self.upstream_errors += 1
            kind = "invalid_request_error" if status == 400 else "server_error"
            return _error(status, str(exc), param=None, code=code, kind=kind)
        if spec is not None:
            response = distort_answer(spec, response)
        record.response, record.ended_at = response, datetime.now(UTC)
        return await _answer(request, parsed, response, model=session.model)


def _injected_failure(
    session: WireSession, record: CallRecord, spec: FaultSpec | None
) -> web.Response | None:
    """Record the model fault the call met, if any; the error answer of a failing one."""
    if spec is None or session.faults is None:
        return None
    mark(record, spec, session.faults.events[-1].call)
    failure = failure_of(spec)
    if failure is None:
        return None
    status, message, code, headers = failure
    _fail(record, INJECTED, message)
    kind = "rate_limit_error" if status == 429 else "server_error"
    answer = _error(status, message, param=None, code=code, kind=kind)
    answer.headers.update(headers)
    return answer


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """Close the endpoint's loop as ``asyncio.run`` closes its own: cancel what is left
    (background tasks a client library started there), then asynchronous generators."""
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in tasks:
        task.cancel()
    loop.run_until_complete(_settle(tasks))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.run_until_complete(loop.shutdown_default_executor())
    loop.close()


async def _settle(tasks: list[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


async def _cancel(session: WireSession) -> None:
    tasks = [task for task in session._tasks if not task.done()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _record(session: WireSession, parsed: WireRequest, started: datetime) -> CallRecord:
    notes = {"wire_rewrites": list(parsed.notes)} if parsed.notes else None
    return CallRecord(
        call_id=secrets.token_hex(8),
        seq=0,
        started_at=started,
        model=session.model,
        messages=normalize_messages(parsed.client_messages),
        tools=parsed.client_tools,
        api_base=session.base_url,
        notes=notes,
    )


def _refused(
    session: WireSession, body: Any, started: datetime, exc: RequestShapeError
) -> CallRecord:
    messages = body.get("messages") if isinstance(body, dict) else None
    try:
        copied = normalize_messages(messages if isinstance(messages, list) else [])
    except Exception:  # a body too malformed to copy: the error says what was wrong
        copied = []
    return CallRecord(
        call_id=secrets.token_hex(8),
        seq=0,
        started_at=started,
        model=session.model,
        messages=copied,
        api_base=session.base_url,
        error=("RequestShapeError", str(exc)),
        ended_at=datetime.now(UTC),
    )


def _fail(record: CallRecord, kind: str, message: str) -> None:
    record.error, record.ended_at = (kind, message), datetime.now(UTC)


def _status_of(exc: Exception) -> tuple[int, str | None]:
    if isinstance(exc, ModelRequestError):
        return 400, "context_length_exceeded" if exc.context_overflow else "model_rejected"
    if isinstance(exc, ModelUnavailable | InfrastructureError):
        return 503, "model_unavailable"
    return 500, "wire_error"


def _error(
    status: int,
    message: str,
    *,
    param: str | None,
    code: str | None,
    kind: str = "invalid_request_error",
) -> web.Response:
    body = error_body(message, kind=kind, param=param, code=code)
    return web.json_response(body, status=status)


def _no_run() -> web.Response:
    return _error(
        404,
        "no run is listening at this address: the run finished or timed out",
        param="path",
        code="run_not_found",
    )


async def _answer(
    request: web.Request, parsed: WireRequest, response: LLMResponse, *, model: str
) -> web.StreamResponse:
    if not parsed.stream:
        return web.json_response(completion_body(response, model=model))
    stream = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    await stream.prepare(request)
    for event in stream_events(response, model=model, include_usage=parsed.include_usage):
        await stream.write(event)
    await stream.write_eof()
    return stream
