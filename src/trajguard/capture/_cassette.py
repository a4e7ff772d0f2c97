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
request parameter (the four of :meth:`~trajguard.capture.ChatModel.complete` --
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

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trajguard._files import atomic_write_text, test_artifact_path
from trajguard._json import MAX_DOCUMENT_BYTES, loads_bounded, read_regular_bytes
from trajguard.capture._redaction import BUILTIN_PATTERNS, REDACTED, Redactor, redact_response
from trajguard.capture._requests import UNSTORED_PARAMS, fingerprint, make_request, stored_params
from trajguard.capture._types import LLMResponse, ToolCallRequest, Usage
from trajguard.core.normalize import canonical_json
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
            if r.raw_completion is not None:  # only on an unparsed completion: older files stay
                out["response"]["raw_completion"] = r.raw_completion
        return out


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
            text = read_regular_bytes(path, max_bytes=MAX_DOCUMENT_BYTES).decode("utf-8")
        except FileNotFoundError:
            raise CassetteError("cassette file not found", file=path) from None
        except (OSError, UnicodeDecodeError) as exc:  # a FIFO, a device, too large, not UTF-8
            raise CassetteError(f"cannot read cassette: {exc}", file=path) from None
        try:
            data = loads_bounded(text)
        except json.JSONDecodeError as exc:
            raise CassetteError(
                f"cassette is not valid JSON: {exc.msg}", file=path, line=exc.lineno, hint=_RERECORD
            ) from None
        except ValueError as exc:  # nested too deep, or a number Python will not convert
            raise CassetteError(
                f"cassette is not readable: {exc}", file=path, hint=_RERECORD
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
            raw_completion=_optional_text(data.get("raw_completion")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CassetteError(
            f"invalid recorded response: {exc!r}", file=file, path=at, hint=_RERECORD
        ) from None
    if response.content is not None and not isinstance(response.content, str):
        raise CassetteError("content must be a string or null", file=file, path=f"{at}.content")
    return Interaction(request, stored, response=response)


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def cassette_path(
    test_file: Path, test_name: str, *, name: str | None = None, cassette_dir: str = "cassettes"
) -> Path:
    """A test's cassette: ``<test dir>/<cassette_dir>/<module>/<test>[.<name>].json``."""
    return test_artifact_path(test_file, test_name, name=name, folder=cassette_dir)
