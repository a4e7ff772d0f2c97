"""Values no comparison can hold: a schema-valid ``comparison.json`` may still be nonsense.

The schema says a pass rate is a number and ``n`` an integer; it cannot say that a rate lies in
[0, 1] or that no comparison counts 10^15 runs. A document edited by hand, or written by
something else, with a pass rate of 1e300, a p-value of -3 or ``n`` of 10^15 would render as a
report with those figures in it; :func:`impossible_values` names each such value by its JSON
path so that reading the document refuses it instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_COUNT", "impossible_values"]

MAX_COUNT = 10**9
"""The most runs, nights or passes a count may hold (``--runs`` allows 10,000 per scenario)."""

_PROBABILITY = re.compile(
    r"^(p_.*|min_p|change_p|alpha.*|mde_alpha|power|false_alarm_rate|.*_rate|.*_rate_.*|"
    r"(pass|crash)_(low|high))$"
)
_COUNT = re.compile(
    r"^(n|runs|passes|judged|count|nights|distinct|disagreeing_runs|runs_(baseline|candidate)|"
    r"harness_excluded_(baseline|candidate)|(gating|diagnostic)_tests)$"
)
_SHOWN = 20


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _problem(key: str, value: Any) -> str | None:
    if _PROBABILITY.match(key) and _number(value) and not 0 <= value <= 1:
        return f"{value:g} is no probability (a rate or p-value lies in [0, 1])"
    if _COUNT.match(key) and _number(value) and not 0 <= value <= MAX_COUNT:
        return f"{value!r} is no count of runs (0 to {MAX_COUNT:,})"
    return None


def impossible_values(data: Any) -> list[str]:
    """``$.path: what is wrong`` for each rate or p-value outside [0, 1] and each negative or
    absurd count in ``data`` (a document as JSON data), in document order (iteratively)."""
    found: list[str] = []
    stack: list[tuple[str, str, Any]] = [("$", "", data)]
    while stack:
        path, key, value = stack.pop()
        if isinstance(value, Mapping):
            stack.extend((f"{path}.{k}", str(k), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list | tuple):
            stack.extend((f"{path}[{i}]", key, v) for i, v in reversed(list(enumerate(value))))
        else:
            problem = _problem(key, value)
            if problem is not None:
                found.append(f"{path}: {problem}")
    return found
