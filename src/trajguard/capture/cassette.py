"""Cassettes: the recorded model calls of one test, as reviewable JSON.

A cassette file is canonical JSON (sorted keys, two-space indent, trailing newline), written
atomically, committed next to the test and read in review like a golden file::

    {
      "format": "trajguard-cassette",
      "interactions": [
        {
          "fingerprint": "3f1c0b9a5d2e7781",
          "request": {"messages": [...], "params": {...}, "tools": [...] | null},
          "response": {"content": ..., "finish_reason": ..., "model": ...,
                       "tool_calls": [{"arguments": ..., "id": ..., "name": ...}],
                       "usage": {"cached_tokens": ..., "completion_tokens": ...,
                                 "prompt_tokens": ...}}
        }
      ],
      "model_name": "local/smollm2",
      "version": 1
    }

An interaction whose call failed with :class:`~trajguard.errors.ModelRequestError` (a rejected
request, a context overflow) stores ``"error": {"type", "message", "context_overflow"}`` instead
of ``"response"``, and replay raises it again: the agent's error path is part of the run.

**What is stored** is the request the model was sent: messages, tool definitions and every
request parameter (the four of :meth:`~trajguard.capture.types.ChatModel.complete` --
``temperature``, ``max_tokens``, ``response_format``, ``seed`` -- always, plus a model's
``extra_params`` such as ``top_p``, ``stop``, ``parallel_tool_calls`` or ``extra_body``), except
:data:`UNSTORED_PARAMS` (endpoints, timeouts, retries, headers, metadata: they do not change the
answer) and any credential-named parameter (``api_key``, ``aws_secret_access_key``,
``vertex_credentials`` …), which is dropped, never stored. Every stored string -- dict keys and
``model_name`` included -- then passes through the :class:`Redactor` (see
:data:`BUILTIN_PATTERNS`), object-repr addresses in requests are masked (``<function f at
0x7f…>`` changes every run), and tool-call ids in requests are renumbered ``call_1, call_2 …``
preserving the join (an agent that mints its own random ids must not drift).

Cassettes written before extra parameters were stored hold just the four; they still load and
replay unchanged, and a model that now sends an extra parameter fails with a
:class:`~trajguard.errors.RequestDrift` naming it (re-record to store it).

``latency_s`` is not stored: it would change every re-recorded line in review, and a replay
takes no model time, so replayed responses report ``0.0`` (trajectories carry no latency).

**The fingerprint** is a SHA-256 prefix of the canonical JSON of that stored request *without*
``seed``: runs send random seeds, and replay must not depend on them. Everything else that was
sent, including whether tools were offered at all, is part of it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajguard._files import atomic_write_text, test_artifact_path
from trajguard.capture.types import LLMResponse, Message, ToolCallRequest, Usage
from trajguard.core.normalize import canonical_json, mask_addresses
from trajguard.errors import CassetteError

__all__ = [
    "BUILTIN_PATTERNS",
    "FORMAT",
    "FORMAT_VERSION",
    "REDACTED",
    "UNSTORED_PARAMS",
    "Cassette",
    "Interaction",
    "RecordedError",
    "Redactor",
    "cassette_path",
    "fingerprint",
    "make_request",
    "redact_response",
    "stored_params",
]

FORMAT = "trajguard-cassette"
FORMAT_VERSION = 1
REDACTED = "[REDACTED]"

# Names of secrets (not secrets themselves, hence the noqa).
_SECRET_WORDS = r"api[_-]?key|apikey|access[_-]?key|private[_-]?key|password|passwd|secret"  # noqa: S105
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token|digest)\s+)?"
        r"[^\s\"',;]*[^\s\"',;.]",
        r"\1" + REDACTED,
    ),
    (r"\bsk-[A-Za-z0-9_-]{16,}", REDACTED),
    (r"\bgh[pousr]_[A-Za-z0-9]{30,}", REDACTED),
    (r"\bAKIA[0-9A-Z]{16}\b", REDACTED),
    (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", REDACTED),
    (r"(\bBearer )[^\s\"',;]*[^\s\"',;.]", r"\1" + REDACTED),
    (
        r"(?i)(\b(?:x-)?(?:" + _SECRET_WORDS + r"|client[_-]secret|(?:access|auth|refresh)"
        r"[_-]token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&]*[^\s\"',;}&.]",
        r"\1" + REDACTED,
    ),
)
"""``(pattern, replacement)`` pairs applied to every stored string, in order: provider-shaped
keys (``sk-…``, ``ghp_…``, ``AKIA…``, ``xox?-…``), the credential after ``Bearer `` or
``Authorization:``, and the value after a secret-named key in text (``api_key=…``)."""

_SECRET_KEY = re.compile(
    r"(?i)^(?:.*[_-])?(?:" + _SECRET_WORDS + r"|authorization|token|cookie|set-cookie)$"
)

UNSTORED_PARAMS = frozenset(
    {
        # where the call goes, with what key, and how it is transported
        "api_key",
        "api_base",
        "base_url",
        "api_version",
        "organization",
        "headers",
        "extra_headers",
        # how long it may take and how often it is retried
        "timeout",
        "timeout_s",
        "request_timeout",
        "stream_timeout",
        "max_retries",
        "num_retries",
        "backoff_s",
        # bookkeeping the model never sees
        "metadata",
        "user",
        "logger_fn",
        "callbacks",
        "drop_params",
    }
)
"""Request parameters that are never stored nor fingerprinted: they do not change the model's
answer (endpoint, timeouts, retries, headers, metadata). Credential-named parameters (matching
``key``, ``secret``, ``token``, ``password``, ``credential``, ``auth`` … but not ``max_tokens``)
are never stored either."""

_CREDENTIAL_PARAM = re.compile(
    r"(?i)(?:api[_-]?key|access[_-]?key|private[_-]?key|secret|password|passwd|credential"
    r"|auth|cookie|(?:^|[_-])token$|(?:^|[_-])key$)"
)


class Redactor:
    """Masks secrets in every string of a JSON-like value; idempotent.

    Besides :data:`BUILTIN_PATTERNS`, a string value under a dict key named like a secret
    (``api_key``, ``authorization``, ``password``, ``token``, ``x-api-key`` …, but not
    ``max_tokens``) becomes ``[REDACTED]`` whatever it looks like. Dict keys are redacted like
    any other string (two keys that redact to the same text keep the last value).

    Args:
        patterns: user regular expressions (``re`` syntax); every match becomes ``[REDACTED]``.

    Raises:
        ValueError: a pattern does not compile or matches the empty string (the message names it).
    """

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        self.patterns: tuple[str, ...] = tuple(patterns)
        rules = [(re.compile(pattern), repl) for pattern, repl in BUILTIN_PATTERNS]
        for pattern in self.patterns:
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid redaction pattern {pattern!r}: {exc}") from None
            if compiled.fullmatch(""):
                raise ValueError(f"redaction pattern {pattern!r} matches the empty string")
            rules.append((compiled, REDACTED))
        self._rules = tuple(rules)

    def __repr__(self) -> str:
        return f"Redactor(patterns={self.patterns!r})"

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by ``[REDACTED]``."""
        for pattern, replacement in self._rules:
            text = pattern.sub(replacement, text)
        return text

    def value(self, value: Any) -> Any:
        """A JSON-ready copy of ``value`` with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                self.text(str(k)): REDACTED
                if isinstance(v, str) and _SECRET_KEY.match(str(k))
                else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value


def _mask(value: Any) -> Any:
    if isinstance(value, str):
        return mask_addresses(value)
    if isinstance(value, dict):
        return {k: _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _renumber_call_ids(messages: list[Any]) -> None:
    """Rewrite tool-call ids to ``call_1, call_2 …`` in place, keeping call and result joined."""
    ids: dict[str, str] = {}

    def new_id(old: Any) -> Any:
        if not isinstance(old, str):
            return old
        return ids.setdefault(old, f"call_{len(ids) + 1}")

    for message in messages:
        if not isinstance(message, dict):
            continue
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and "id" in call:
                call["id"] = new_id(call["id"])
        if "tool_call_id" in message:
            message["tool_call_id"] = new_id(message["tool_call_id"])


def _jsonable(value: Any) -> Any:
    """``value`` as JSON data; what JSON cannot hold becomes its ``repr`` (addresses masked)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def stored_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The parameters of ``params`` that go into a cassette (and its fingerprint).

    Drops :data:`UNSTORED_PARAMS` and every credential-named parameter; values JSON cannot
    hold are stored as their ``repr``.
    """
    return {
        str(key): _jsonable(value)
        for key, value in (params or {}).items()
        if str(key) not in UNSTORED_PARAMS and not _CREDENTIAL_PARAM.search(str(key))
    }


def make_request(
    messages: Sequence[Message],
    *,
    tools: Sequence[Mapping[str, Any]] | None,
    response_format: Mapping[str, Any] | None,
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    redactor: Redactor,
    extra_params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored form of one request: redacted, address-masked, tool-call ids renumbered.

    ``params`` holds the four arguments of ``ChatModel.complete`` (``None`` when not sent) and
    :func:`stored_params` of ``extra_params``, the parameters the model adds to every call; an
    explicit argument that is not ``None`` wins over the same key in ``extra_params``, as in
    :class:`~trajguard.capture.llm.LiteLLMModel`.
    """
    params = stored_params(extra_params)
    explicit = {
        "max_tokens": max_tokens,
        "response_format": response_format,
        "seed": seed,
        "temperature": temperature,
    }
    for key, value in explicit.items():
        if value is not None or key not in params:
            params[key] = _jsonable(value)
    raw = {
        "messages": list(messages),
        "tools": list(tools) if tools else None,
        "params": params,
    }
    request: dict[str, Any] = _mask(json.loads(canonical_json(redactor.value(raw))))
    _renumber_call_ids(request["messages"])
    return request


def fingerprint(request: Mapping[str, Any]) -> str:
    """SHA-256 prefix (16 hex digits) of a stored request, ``params.seed`` left out."""
    params = {k: v for k, v in request.get("params", {}).items() if k != "seed"}
    text = canonical_json({**request, "params": params})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class RecordedError:
    """A :class:`~trajguard.errors.ModelRequestError` a recorded call raised."""

    message: str
    hint: str | None = None
    context_overflow: bool = False
    type: str = "ModelRequestError"


@dataclass(frozen=True)
class Interaction:
    """One recorded model call: its stored request, fingerprint, and response or error."""

    request: dict[str, Any]
    fingerprint: str
    response: LLMResponse | None = None
    error: RecordedError | None = None

    def to_json(self) -> dict[str, Any]:
        """The interaction as stored in the file."""
        out: dict[str, Any] = {"request": self.request, "fingerprint": self.fingerprint}
        if self.error is not None:
            out["error"] = {
                "type": self.error.type,
                "message": self.error.message,
                "hint": self.error.hint,
                "context_overflow": self.error.context_overflow,
            }
        if self.response is not None:
            r = self.response
            out["response"] = {
                "content": r.content,
                "tool_calls": [
                    {"id": c.id, "name": c.name, "arguments": c.arguments} for c in r.tool_calls
                ],
                "finish_reason": r.finish_reason,
                "usage": {
                    "prompt_tokens": r.usage.prompt_tokens,
                    "completion_tokens": r.usage.completion_tokens,
                    "cached_tokens": r.usage.cached_tokens,
                },
                "model": r.model,
            }
        return out


def redact_response(response: LLMResponse, redactor: Redactor) -> LLMResponse:
    """The stored copy of ``response``: every string redacted, no latency."""
    text = redactor.text
    return LLMResponse(
        content=None if response.content is None else text(response.content),
        tool_calls=tuple(
            ToolCallRequest(id=text(c.id), name=text(c.name), arguments=text(c.arguments))
            for c in response.tool_calls
        ),
        finish_reason=None if response.finish_reason is None else text(response.finish_reason),
        usage=response.usage,
        model=text(response.model),
    )


@dataclass
class Cassette:
    """The recorded calls of one test, in call order, and the model they were recorded from.

    Attributes:
        path: the cassette file.
        model_name: ``model_name`` of the model that was recorded (``local/smollm2``), stored
            redacted.
        interactions: the calls in the order they were made.
        redactor: applied to everything recorded into this cassette (and to replayed requests,
            so their fingerprints are comparable).
    """

    path: Path
    model_name: str = ""
    interactions: list[Interaction] = field(default_factory=list)
    redactor: Redactor = field(default_factory=Redactor)

    def to_json(self) -> dict[str, Any]:
        """The whole file as a JSON-ready dict."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "model_name": self.redactor.text(self.model_name),
            "interactions": [interaction.to_json() for interaction in self.interactions],
        }

    def text(self) -> str:
        """The exact file text: canonical JSON, two-space indent, trailing newline."""
        return canonical_json(self.to_json(), indent=2) + "\n"

    def save(self) -> None:
        """Write the file atomically (temp file in the same directory, then rename)."""
        atomic_write_text(self.path, self.text())

    @classmethod
    def load(cls, path: Path, *, redactor: Redactor | None = None) -> Cassette:
        """Read a cassette file.

        Raises:
            CassetteError: the file is missing or unreadable, not JSON, not a cassette of this
                format version, or a request was edited by hand (its fingerprint no longer
                matches); the error names the file and the JSON path.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CassetteError("cassette file not found", file=path) from None
        except OSError as exc:
            raise CassetteError(f"cannot read cassette: {exc}", file=path) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CassetteError(
                f"cassette is not valid JSON: {exc.msg}", file=path, line=exc.lineno, hint=_RERECORD
            ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CassetteError(f"not a {FORMAT} file", file=path, hint=_RERECORD)
        if data.get("version") != FORMAT_VERSION:
            raise CassetteError(
                f"cassette format version {data.get('version')!r}; this trajguard reads "
                f"version {FORMAT_VERSION}",
                file=path,
                path="$.version",
                hint=_RERECORD,
            )
        items = _field(data, "interactions", list, "$", path)
        return cls(
            path=path,
            model_name=_field(data, "model_name", str, "$", path),
            interactions=[
                _interaction(item, f"$.interactions[{i}]", path) for i, item in enumerate(items)
            ],
            redactor=redactor or Redactor(),
        )


_RERECORD = "re-record it: pytest <test> --llm-record-mode=all --golden-update"


def _field(obj: Any, key: str, kind: type | tuple[type, ...], where: str, file: Path) -> Any:
    if not isinstance(obj, dict):
        raise CassetteError("expected a JSON object", file=file, path=where, hint=_RERECORD)
    value = obj.get(key)
    if not isinstance(value, kind):
        raise CassetteError(
            f"missing or invalid field {key!r}", file=file, path=f"{where}.{key}", hint=_RERECORD
        )
    return value


def _interaction(item: Any, where: str, file: Path) -> Interaction:
    request = _field(item, "request", dict, where, file)
    _field(request, "messages", list, f"{where}.request", file)
    _field(request, "params", dict, f"{where}.request", file)
    _field(request, "tools", (list, type(None)), f"{where}.request", file)
    stored = _field(item, "fingerprint", str, where, file)
    if stored != fingerprint(request):
        raise CassetteError(
            "the recorded request does not match its fingerprint (edited by hand?)",
            file=file,
            path=f"{where}.request",
            hint=_RERECORD,
        )
    if item.get("error") is not None:
        error = _field(item, "error", dict, where, file)
        return Interaction(
            request,
            stored,
            error=RecordedError(
                message=_field(error, "message", str, f"{where}.error", file),
                hint=error.get("hint") if isinstance(error.get("hint"), str) else None,
                context_overflow=bool(error.get("context_overflow", False)),
            ),
        )
    data = _field(item, "response", dict, where, file)
    at = f"{where}.response"
    try:
        usage = data.get("usage") or {}
        response = LLMResponse(
            content=data.get("content"),
            tool_calls=tuple(
                ToolCallRequest(id=str(c["id"]), name=str(c["name"]), arguments=str(c["arguments"]))
                for c in data.get("tool_calls") or ()
            ),
            finish_reason=data.get("finish_reason"),
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
                cached_tokens=int(usage.get("cached_tokens", 0)),
            ),
            model=str(data.get("model", "")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CassetteError(
            f"invalid recorded response: {exc!r}", file=file, path=at, hint=_RERECORD
        ) from None
    if response.content is not None and not isinstance(response.content, str):
        raise CassetteError("content must be a string or null", file=file, path=f"{at}.content")
    return Interaction(request, stored, response=response)


def cassette_path(
    test_file: Path, test_name: str, *, name: str | None = None, cassette_dir: str = "cassettes"
) -> Path:
    """A test's cassette: ``<test dir>/<cassette_dir>/<module>/<test>[.<name>].json``."""
    return test_artifact_path(test_file, test_name, name=name, folder=cassette_dir)
