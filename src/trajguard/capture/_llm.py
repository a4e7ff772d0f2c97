"""The model layer: the one place in trajguard that calls litellm.

Provider quirks live here and nowhere else:

- ``tool_choice="auto"`` is sent whenever tools are: the llama.cpp server silently leaves the
  tools out of the prompt without it.
- Unsupported parameters are dropped per call (``drop_params=True``), never by changing
  litellm's global settings, which belong to the user's own code as well.
- ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set before litellm is first imported, otherwise the
  import fetches a price map from the network (and, offline, retries with sleeps).
- Transport failures (connection refused, timeout, 429, 5xx, an answer that is not a
  completion) are retried here, a bounded number of times with exponential backoff and jitter
  (at least the ``Retry-After`` a 429 or 503 asks for, capped at :data:`MAX_RETRY_AFTER_S`), then
  raised as :class:`ModelUnavailable` whose ``reason`` says which. Missing or refused
  credentials and unknown models are never retried. The OpenAI SDK's own hidden retries are
  switched off per call so the count is ours.
- Every message built from a provider's error is scrubbed of secrets (a provider may echo the
  key it refused).

litellm is imported lazily (about 3 s), so importing trajguard stays cheap.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import time
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from trajguard.capture._litellm_errors import (
    describe,
    failure_reason,
    is_request_validation_error,
    is_transient,
    lacks_credentials,
    mentions_context,
    retry_after_s,
    retryable_errors,
    to_response,
)
from trajguard.capture._model_strings import model_problem
from trajguard.capture._route import Route as _Route
from trajguard.capture._route import backoff_delay
from trajguard.capture._types import LLMResponse, Message
from trajguard.errors import ModelRequestError, ModelUnavailable
from trajguard.local_model import (
    MODEL_STRING,
    SERVED_MODEL_NAME,
    LocalModelServer,
    get_local_server,
    is_local_model,
    running_local_server,
    slot_crash,
)
from trajguard.redaction import scrub

__all__ = [
    "DEFAULT_MODEL",
    "MAX_RETRY_AFTER_S",
    "LiteLLMModel",
    "backoff_delay",
    "model_problem",
    "release_loop_clients",
]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DEFAULT_MODEL = MODEL_STRING
"""The model used when nothing else is configured: the embedded SmolLM2."""

_LOCAL_API_KEY = "sk-no-key"  # the embedded server checks no key; the OpenAI client wants one
MAX_RETRY_AFTER_S = 60.0
"""The longest wait a provider's ``Retry-After`` can impose on one retry."""
# Keys the model layer sets itself; extra_params may not override them.
_RESERVED_PARAMS = frozenset(
    {"model", "messages", "tools", "api_base", "base_url", "api_key", "drop_params", "stream"}
)

# Indirection so tests can observe the backoff schedule without sleeping.
_sleep = asyncio.sleep


def _litellm() -> ModuleType:
    import litellm  # lazy on purpose, see the module docstring

    return litellm


class LiteLLMModel:
    """A :class:`~trajguard.capture.ChatModel` backed by litellm (async).

    ``local/smollm2`` (the default) routes to the embedded llama.cpp server, started on first
    use and shared by every model instance in the process. Any other litellm model string
    (``ollama_chat/qwen2.5:1.5b``, ``openai/gpt-4o-mini``, ``openai/x`` with ``api_base``) goes
    to that provider directly.

    Args:
        model: a litellm model string, or ``local/smollm2``.
        api_base: the endpoint for OpenAI-compatible servers; ``None`` for the provider default.
        api_key: the key for the provider; ``None`` lets litellm read the provider's env var.
        timeout_s: timeout of one attempt.
        max_retries: retries after a transport failure (so at most ``max_retries + 1`` attempts).
        backoff_s: the wait before the first retry; doubled each retry, with jitter.
        extra_params: further litellm arguments sent with every call (e.g.
            ``{"parallel_tool_calls": False}``, ``{"extra_body": {...}}``); explicit arguments
            of :meth:`complete` take precedence.
    """

    DEFAULT_TIMEOUT_S = 120.0
    """How long one attempt may take unless ``timeout_s`` says otherwise."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        extra_params: Mapping[str, Any] | None = None,
    ) -> None:
        problem = model_problem(model, api_base, provider=False)  # the provider: on the call
        if problem is not None:
            raise ValueError(problem)
        if max_retries < 0 or timeout_s <= 0 or backoff_s < 0:
            raise ValueError("max_retries and backoff_s must be >= 0 and timeout_s > 0")
        reserved = _RESERVED_PARAMS.intersection(extra_params or {})
        if reserved:
            raise ValueError(f"extra_params may not set {sorted(reserved)}; use the arguments")
        self._model = model
        self._api_base = api_base
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.extra_params: dict[str, Any] = dict(extra_params or {})
        self.last_retry: tuple[str, float] | None = None
        """The reason and wait of the latest retry of a call (``rate_limited``, 30.0), so that
        a caller which gave up on the call meanwhile can say why it did not get through."""

    def __repr__(self) -> str:
        # Never the key: reprs end up in logs and tracebacks.
        base = f", api_base={self._api_base!r}" if self._api_base else ""
        return f"LiteLLMModel({self._model!r}{base})"

    @property
    def model_name(self) -> str:
        """The model string as configured (``local/smollm2`` for the embedded model)."""
        return self._model

    @property
    def is_local(self) -> bool:
        """Whether this model is the embedded llama.cpp server."""
        return is_local_model(self._model)

    async def prepare(self) -> None:
        """Import litellm now (seconds, once per process), so a timed first call times the
        endpoint and not the import."""
        await asyncio.to_thread(_litellm)

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> LLMResponse:
        """Run one chat completion, retrying transport failures.

        Args:
            messages: the conversation so far (OpenAI-style dicts).
            tools: OpenAI-style tool definitions, or ``None`` for a call without tools.
            response_format: e.g. ``{"type": "json_object", "schema": {...}}`` (the form the
                llama.cpp server constrains its output to).
            temperature: sampling temperature; ``None`` leaves the provider default.
            max_tokens: completion cap; ``None`` leaves the provider default.
            seed: sampling seed; ``None`` sends none.
            options: further OpenAI parameters for this call only (``stop``, ``top_p``,
                ``tool_choice`` ...), over ``extra_params``; the explicit arguments above win.
                Keys the model layer sets itself (``model``, ``messages``, ``api_key`` ...)
                are refused.

        Returns:
            The response; ``latency_s`` includes retries and backoff.

        Raises:
            ModelUnavailable: the endpoint was unreachable after the retries, refused the
                credentials, or does not serve the model.
            ModelRequestError: the endpoint rejected the request (bad request, context overflow).
            MissingExtra: ``local/smollm2`` without the ``local`` extra installed.
            ValueError: ``options`` sets a key the model layer sets itself.
        """
        started = time.perf_counter()
        reserved = _RESERVED_PARAMS.intersection(options or {})
        if reserved:
            raise ValueError(f"options may not set {sorted(reserved)}; use the arguments")
        kwargs = self._call_kwargs(
            messages,
            tools=tools,
            response_format=response_format,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            options=options,
        )
        return await self._call_with_retries(kwargs, started=started)

    async def _route(self) -> _Route:
        if not self.is_local:
            return _Route(self._model, self._api_base, self._api_key)
        server: LocalModelServer | None = running_local_server()
        if server is None:
            # Starting takes about a second; keep the event loop (and the other runs) going.
            server = await asyncio.to_thread(get_local_server)
        return _Route(f"openai/{SERVED_MODEL_NAME}", server.base_url, _LOCAL_API_KEY)

    def _call_kwargs(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None,
        response_format: Mapping[str, Any] | None,
        temperature: float | None,
        max_tokens: int | None,
        seed: int | None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {**self.extra_params, **(options or {})}
        optional = {
            "response_format": dict(response_format) if response_format is not None else None,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
        }
        kwargs.update({key: value for key, value in optional.items() if value is not None})
        if tools:
            kwargs["tools"] = [dict(tool) for tool in tools]
            kwargs.setdefault("tool_choice", "auto")
        else:
            kwargs.pop("tool_choice", None)  # a tool_choice without tools is rejected
        kwargs.update(
            messages=list(messages),
            timeout=self.timeout_s,
            # The OpenAI SDK would otherwise retry twice more on its own, multiplying ours.
            max_retries=0,
            drop_params=True,
        )
        return kwargs

    async def _call_with_retries(self, kwargs: dict[str, Any], *, started: float) -> LLMResponse:
        litellm = _litellm()
        retryable = retryable_errors(litellm)
        attempts = self.max_retries + 1
        attempt = 1
        while True:
            # Routed per attempt: a dead embedded server is restarted here, or, once its
            # restarts are spent, the route raises the death's diagnosis (EmbeddedModelCrashed).
            route = await self._route()
            endpoint = route.endpoint
            try:
                raw = await litellm.acompletion(**kwargs, **route.params())
                return to_response(raw, latency_s=time.perf_counter() - started)
            except Exception as exc:
                if not is_transient(exc, retryable):
                    raise self._map_final_error(exc, litellm=litellm, endpoint=endpoint) from exc
                if self.is_local and slot_crash() is not None:
                    continue  # a death is no attempt: no backoff, never "unreachable"
                if attempt == attempts:
                    raise self._spent(exc, litellm, endpoint, attempts) from exc
                delay = backoff_delay(attempt, base_s=self.backoff_s)
                asked = retry_after_s(exc)
                if asked is not None:
                    delay = max(delay, min(asked, MAX_RETRY_AFTER_S))
                self.last_retry = (failure_reason(exc, litellm), delay)
                await _sleep(delay)
                attempt += 1

    def _spent(
        self, exc: Exception, litellm: ModuleType, endpoint: str, attempts: int
    ) -> ModelUnavailable:
        reason = failure_reason(exc, litellm)
        tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
        what = {
            "rate_limited": f"still rate limited after {tries}",
            "malformed_response": f"answered no usable completion in {tries}",
            "server_error": f"failed with server errors in {tries}",
        }.get(reason, f"unreachable after {tries}")
        hint = self._unreachable_hint()
        if reason == "rate_limited":
            hint = "lower --concurrency, or run when the provider's quota allows"
        return ModelUnavailable(
            self._scrub(f"model {self._model} at {endpoint} {what}: {describe(exc)}"),
            reason=reason,
            hint=hint,
        )

    def _scrub(self, text: str) -> str:
        return scrub(text, secrets=[self._api_key] if self._api_key else [])

    def _map_final_error(self, exc: Exception, *, litellm: ModuleType, endpoint: str) -> Exception:
        where = f"model {self._model} at {endpoint}"
        if lacks_credentials(exc):
            return ModelUnavailable(
                f"{where}: no API key is set for the provider",
                reason="auth",
                hint="set the provider's API key in its environment variable (for example "
                "OPENAI_API_KEY) or pass api_key",
            )
        if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
            return ModelUnavailable(
                self._scrub(f"{where} refused the credentials: {describe(exc)}"),
                reason="auth",
                hint="set the provider's API key in its environment variable (for example "
                "OPENAI_API_KEY) or pass api_key; trajguard never prints keys",
            )
        if isinstance(exc, litellm.NotFoundError):
            return ModelUnavailable(
                self._scrub(f"{where} was not found: {describe(exc)}"),
                reason="not_found",
                hint="check the model name (for Ollama: ollama pull <model>) and api_base",
            )
        if isinstance(
            exc, litellm.BadRequestError | litellm.UnprocessableEntityError
        ) or is_request_validation_error(exc):
            overflow = isinstance(exc, litellm.ContextWindowExceededError) or mentions_context(exc)
            what = "context window exceeded" if overflow else "request rejected"
            return ModelRequestError(
                self._scrub(f"{where}: {what}: {describe(exc)}"),
                context_overflow=overflow,
                hint="shorten the conversation or cap the steps"
                if overflow
                else "check the request parameters the agent sends",
            )
        if isinstance(exc, litellm.APIError | litellm.APIResponseValidationError):
            return ModelUnavailable(
                self._scrub(f"{where} failed: {describe(exc)}"),
                reason="server_error",
                hint=self._unreachable_hint(),
            )
        return exc

    def _unreachable_hint(self) -> str:
        if self.is_local:
            return (
                "the embedded llama.cpp server is running but did not answer (an overloaded "
                "machine?); rerun with lower --concurrency, or use --model"
            )
        return "check that the model server is running and reachable, then rerun"


async def release_loop_clients() -> None:
    """Close the HTTP clients litellm cached for the running event loop, before that loop is
    closed (litellm keys its async clients by loop; left open, their sockets outlive the loop).

    Only the clients of this loop are touched: those of other loops, the user's among them,
    stay as they are. A litellm whose cache looks different is left alone.
    """
    litellm = _litellm()
    try:
        from litellm.caching.evicted_client_closer import running_loop_token

        cache = litellm.in_memory_llm_clients_cache
        token = running_loop_token()
        keys = [key for key in list(cache.cache_dict) if str(key).endswith(f"-{token}")]
    except Exception:  # another litellm version: nothing to release that we know of
        return
    for key in keys if token is not None else ():
        client = cache.cache_dict.get(key)
        close = getattr(client, "aclose", None) or getattr(client, "close", None)
        with contextlib.suppress(Exception):
            closing = close() if callable(close) else None
            if inspect.isawaitable(closing):
                await closing
        with contextlib.suppress(Exception):
            cache.delete_cache(key)
