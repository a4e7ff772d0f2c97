"""Request drift in words: the first message, tool or parameter that differs from the recording."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trajguard.core.normalize import canonical_json

__all__ = ["describe_drift", "last_message"]

_CONTEXT = 30
_SHOWN = 70


def describe_drift(recorded: Mapping[str, Any], actual: Mapping[str, Any]) -> tuple[str, str]:
    """Say how two stored requests differ: ``(description, JSON path under the request)``.

    The first differing message comes first (its index, role and a short before/after), then
    the other parts that differ (tools, params, each differing param named); ``seed`` is
    ignored.
    """
    parts: list[tuple[str, str]] = []
    message = _message_drift(recorded.get("messages", []), actual.get("messages", []))
    if message is not None:
        parts.append(message)
    tools = _tools_drift(recorded.get("tools"), actual.get("tools"))
    if tools is not None:
        parts.append((tools, ".tools"))
    params = _params_drift(recorded.get("params", {}), actual.get("params", {}))
    if params is not None:
        parts.append(params)
    if not parts:
        return "the request differs from the recording", ""
    text = parts[0][0]
    if len(parts) > 1:
        text += "\n  also differs: " + ", ".join(where.lstrip(".") for _, where in parts[1:])
    return text, parts[0][1]


def _message_drift(recorded: list[Any], actual: list[Any]) -> tuple[str, str] | None:
    for i in range(max(len(recorded), len(actual))):
        where = f".messages[{i}]"
        if i >= len(recorded):
            new = actual[i]
            return f"messages[{i}] ({_role(new)}) is new: {_excerpt(_text(new), 0)}", where
        if i >= len(actual):
            old = recorded[i]
            return f"messages[{i}] ({_role(old)}) is no longer sent", where
        old, new = recorded[i], actual[i]
        if old == new:
            continue
        if not (isinstance(old, dict) and isinstance(new, dict)):
            return f"messages[{i}] differs\n{_before_after(old, new)}", where
        if old.get("role") != new.get("role"):
            return f"messages[{i}] role was {_role(old)}, now {_role(new)}", where + ".role"
        key = next(k for k in sorted(old.keys() | new.keys()) if old.get(k) != new.get(k))
        change = _before_after(old.get(key), new.get(key))
        return f"messages[{i}] ({_role(new)}) {key} differs\n{change}", f"{where}.{key}"
    return None


def _tools_drift(recorded: list[Any] | None, actual: list[Any] | None) -> str | None:
    if recorded == actual:
        return None
    if not recorded or not actual:
        was, now = len(recorded or ()), len(actual or ())
        return f"tools: {was} offered when recorded, {now} now"
    old, new = _tool_names(recorded), _tool_names(actual)
    if old != new:
        return f"tools: recorded {old}, now {new}"
    for name, a, b in zip(old, recorded, actual, strict=True):
        if a != b:
            return f"tools: definition of {name!r} differs\n{_before_after(a, b)}"
    return "tools differ"  # pragma: no cover - equal names and definitions mean equal lists


def _params_drift(recorded: Mapping[str, Any], actual: Mapping[str, Any]) -> tuple[str, str] | None:
    keys = [
        key
        for key in sorted(recorded.keys() | actual.keys())
        if key != "seed"
        and (key in recorded, recorded.get(key)) != (key in actual, actual.get(key))
    ]
    if not keys:
        return None
    changed = [
        f"{key} {_param(recorded, key, '(not in the recording)')} -> "
        f"{_param(actual, key, '(not sent)')}"
        for key in keys
    ]
    return "params: " + ", ".join(changed), f".params.{keys[0]}"


def _param(params: Mapping[str, Any], key: str, absent: str) -> str:
    return repr(params[key]) if key in params else absent


def _tool_names(tools: list[Any]) -> list[str]:
    names = []
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        names.append(str(function.get("name", "?")) if isinstance(function, dict) else "?")
    return names


def _role(message: Any) -> str:
    return str(message.get("role", "?")) if isinstance(message, dict) else "?"


def _text(value: Any) -> str:
    if isinstance(value, dict) and set(value) <= {"role", "content"}:
        value = value.get("content")
    return value if isinstance(value, str) else canonical_json(value)


def _excerpt(text: str, at: int) -> str:
    start = max(0, at - _CONTEXT)
    shown = text[start : start + _SHOWN]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + _SHOWN < len(text) else ""
    return repr(prefix + shown + suffix)


def _before_after(old: Any, new: Any) -> str:
    a, b = _text(old), _text(new)
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return f"    recorded: {_excerpt(a, at)}\n    now:      {_excerpt(b, at)}"


def last_message(request: Mapping[str, Any]) -> str:
    messages = request.get("messages") or [{}]
    last = messages[-1]
    content = last.get("content") if isinstance(last, dict) else last
    return f"{_role(last)} {_excerpt(_text(content), 0)}"
