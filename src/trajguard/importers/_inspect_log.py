"""One Inspect log as plain JSON values: what both readers (Inspect's own and the built-in one)
hand to the mapping, so the two give the same runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajguard.errors import SourceLogError

__all__ = [
    "LOG_VERSIONS",
    "SAMPLE_SKIP",
    "TOOL_EVENTS",
    "InspectLog",
    "check_header",
    "check_version",
    "plain",
    "resolve_attachments",
    "slim_sample",
    "tool_events",
]

SAMPLE_SKIP = ("events", "events_data", "store", "timelines")
"""Sample fields the import does not keep (the events repeat the messages many times over)."""

TOOL_EVENTS = "trajguard_tool_events"
"""The key under which a sample carries its tool events, reduced by :func:`tool_events` (the
only part of ``events`` the mapping reads)."""

EVENT_FIELDS = frozenset({"event", "output", "id", "function", "arguments", "result", "error"})
"""The fields of a model or tool event :func:`tool_events` reads."""

_ATTACHMENT = "attachment://"


@dataclass(frozen=True, kw_only=True)
class InspectLog:
    """A log's header (``version``, ``status``, ``eval``, ``plan``, ``results``, ``stats``) and
    its samples, each with where it is in the file (a zip member or a JSON path)."""

    file: Path
    header: Mapping[str, Any]
    samples: Callable[[], Iterator[tuple[str, Mapping[str, Any]]]]


LOG_VERSIONS = frozenset({1, 2})
"""The log format versions trajguard reads (Inspect writes 2; it migrates 1 on reading)."""


def check_version(header: Mapping[str, Any], file: Path) -> None:
    """Refuse a log whose ``version`` this trajguard does not read (a header without one, as
    a journal's start, passes).

    Raises:
        SourceLogError: another version.
    """
    version = header.get("version")
    if version is not None and (isinstance(version, bool) or version not in LOG_VERSIONS):
        raise SourceLogError(
            f"Inspect log version {version!r} is not read (trajguard reads versions "
            f"{', '.join(map(str, sorted(LOG_VERSIONS)))})",
            file=file,
            path="$.version",
            hint="upgrade trajguard, or convert the log with a matching Inspect "
            "(`inspect log convert`)",
        )


def check_header(header: Mapping[str, Any], file: Path) -> Mapping[str, Any]:
    """The header, if it has what the import reads (a known ``version``, ``eval.task``,
    ``eval.model``).

    Raises:
        SourceLogError: a version this trajguard does not read, or a field missing or of the
            wrong type.
    """
    check_version(header, file)
    spec = header.get("eval")
    if not isinstance(spec, Mapping):
        raise SourceLogError(
            "not an Inspect log: no eval spec",
            file=file,
            path="$.eval",
            hint="import a log written by `inspect eval` (.eval or .json)",
        )
    for field in ("task", "model"):
        if not isinstance(spec.get(field), str) or not spec[field]:
            raise SourceLogError(f"the eval spec has no {field}", file=file, path=f"$.eval.{field}")
    return header


def plain(value: Any) -> Any:
    """A JSON-like copy of ``value`` without null or empty members (a pydantic model dumped)."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, Mapping):
        items = ((str(k), plain(v)) for k, v in value.items())
        return {k: v for k, v in items if v is not None and v != {} and v != []}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def resolve_attachments(value: Any, attachments: Mapping[str, str]) -> Any:
    """``value`` with every ``attachment://<hash>`` string replaced by the attachment's text
    (Inspect stores long content once per sample, under ``attachments``)."""
    if not attachments:
        return value
    if isinstance(value, str):
        if value.startswith(_ATTACHMENT):
            return attachments.get(value[len(_ATTACHMENT) :], value)
        return value
    if isinstance(value, Mapping):
        return {k: resolve_attachments(v, attachments) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_attachments(v, attachments) for v in value]
    return value


def tool_events(events: Any) -> list[dict[str, Any]]:
    """The tool calls Inspect ran, in order, from a sample's events: each tool event's call
    ``id``, ``function``, ``arguments``, ``result`` and ``error``, and ``caller``, the id of the
    assistant message (a model event's output) that made the call. ``react()`` removes its
    ``submit()`` call from the messages once the agent ends; its tool event stays."""
    callers: dict[str, str] = {}
    found: list[dict[str, Any]] = []
    for event in events if isinstance(events, list) else ():
        if not isinstance(event, Mapping):
            continue
        if event.get("event") == "model":
            choices = (event.get("output") or {}).get("choices") or [{}]
            message = choices[0].get("message") if isinstance(choices[0], Mapping) else None
            message = message if isinstance(message, Mapping) else {}
            for call in message.get("tool_calls") or ():
                if isinstance(call, Mapping) and call.get("id") is not None:
                    callers[str(call["id"])] = str(message.get("id") or "")
        elif event.get("event") == "tool" and event.get("id") is not None:
            call_id = str(event["id"])
            found.append(
                {
                    "id": call_id,
                    "function": event.get("function"),
                    "arguments": event.get("arguments"),
                    "result": event.get("result"),
                    "error": event.get("error"),
                    "caller": callers.get(call_id),
                }
            )
    return found


def slim_sample(sample: dict[str, Any]) -> dict[str, Any]:
    """``sample`` (a dict read from the log) with its tool events reduced under
    :data:`TOOL_EVENTS` and the fields the import does not keep dropped."""
    sample[TOOL_EVENTS] = tool_events(sample.get("events"))
    for key in SAMPLE_SKIP:
        sample.pop(key, None)
    return sample
