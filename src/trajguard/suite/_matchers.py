"""Matching one expected value against what a run produced: a tool call's arguments, a state.

An expected argument value is one of:

* a plain value: equal to the argument (JSON equality: ``true`` is not ``1``);
* ``{exact: VALUE}``: the same, for a value that would otherwise read as a matcher;
* ``{contains: VALUE}``: a text argument contains the text; a list argument holds the value
  (every item of it, for a list); an object argument holds the keys with these values;
* ``{regex: PATTERN}``: ``re.search`` finds the pattern in a text argument (any other value in
  its JSON form); patterns that could backtrack exponentially are refused at load time
  (:mod:`._safe_regex`);
* ``{ignore: true}``: any value, or none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from trajguard.core import canonical_json
from trajguard.suite._safe_regex import MAX_SUBJECT_CHARS, compile_bounded

__all__ = [
    "MATCHERS",
    "argument_problem",
    "arguments_match",
    "check_matcher",
    "state_differences",
]

MATCHERS = ("exact", "contains", "regex", "ignore")


def _matcher(expected: Any) -> tuple[str, Any]:
    if isinstance(expected, dict) and len(expected) == 1:
        ((key, value),) = expected.items()
        if key in MATCHERS:
            return str(key), value
    return "exact", expected


def check_matcher(expected: Any) -> None:
    """Refuse a matcher that can never be used (at load time).

    Raises:
        ValueError: an invalid or unsafe regex, or ``ignore`` not ``true``.
    """
    how, value = _matcher(expected)
    if how == "regex":
        if not isinstance(value, str):
            raise ValueError(f"regex takes a pattern (a string), got {value!r:.60}")
        compile_bounded(value)
    elif how == "ignore" and value is not True:
        raise ValueError("ignore takes true ({ignore: true}): the argument is not looked at")


def argument_problem(expected: Mapping[str, Any], actual: Any, *, strict: bool) -> str | None:
    """Why a call's ``actual`` arguments do not match ``expected``; ``None`` when they do."""
    if not isinstance(actual, Mapping):
        return f"its arguments are not an object ({actual!r:.60})"
    for name, wanted in expected.items():
        how, value = _matcher(wanted)
        if how == "ignore":
            continue
        if name not in actual:
            return f"argument {name!r} is missing"
        problem = _value_problem(how, value, actual[name])
        if problem is not None:
            return f"argument {name!r}: {problem}"
    if strict:
        extra = sorted(str(k) for k in actual if k not in expected)
        if extra:
            return f"argument {extra[0]!r} is not expected (strict_arguments)"
    return None


def arguments_match(expected: Mapping[str, Any], actual: Any, *, strict: bool) -> bool:
    """Whether a call's ``actual`` arguments match ``expected`` (:func:`argument_problem`
    without the words: the matching of many calls to many entries asks this most)."""
    if not isinstance(actual, dict):
        return False
    for name, wanted in expected.items():
        how, value = _matcher(wanted)
        if how == "ignore":
            continue
        if name not in actual or not _holds(how, value, actual[name]):
            return False
    return not strict or all(k in expected for k in actual)


def _holds(how: str, expected: Any, actual: Any) -> bool:
    if how == "exact":
        return same(expected, actual)
    if how == "regex":
        text = actual if isinstance(actual, str) else canonical_json(actual)
        return len(text) <= MAX_SUBJECT_CHARS and re.search(str(expected), text) is not None
    return _contains(expected, actual)


def _value_problem(how: str, expected: Any, actual: Any) -> str | None:
    shown = f"{actual!r:.60}"
    if how == "exact":
        return None if same(expected, actual) else f"{shown} is not {expected!r:.60}"
    if how == "regex":
        text = actual if isinstance(actual, str) else canonical_json(actual)
        if len(text) > MAX_SUBJECT_CHARS:
            return f"longer than the {MAX_SUBJECT_CHARS} characters a regex is matched on"
        found = re.search(str(expected), text)  # checked by compile_bounded at load time
        return None if found else f"{shown} does not match regex {expected!r}"
    return None if _contains(expected, actual) else f"{shown} does not contain {expected!r:.60}"


def _contains(expected: Any, actual: Any) -> bool:
    if isinstance(actual, str):
        return isinstance(expected, str) and expected in actual
    if isinstance(actual, list):
        wanted = expected if isinstance(expected, list) else [expected]
        return all(any(same(w, a) for a in actual) for w in wanted)
    if isinstance(actual, dict) and isinstance(expected, dict):
        return not state_differences(expected, actual, partial=True)
    return False


def same(expected: Any, actual: Any) -> bool:
    """JSON equality: ``1 == 1.0``, but ``true`` is not ``1`` (on decoded JSON: plain dicts and
    lists, which are checked as such because an ABC check is slow)."""
    if type(expected) is bool or type(actual) is bool:
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(
            same(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            same(e, a) for e, a in zip(expected, actual, strict=True)
        )
    if isinstance(expected, dict | list) or isinstance(actual, dict | list):
        return False
    return bool(expected == actual)


def state_differences(
    expected: Any, actual: Any, *, partial: bool, path: str = "state"
) -> list[str]:
    """Every place ``actual`` differs from ``expected`` (``state.bookings[0].seat: '12A',
    expected '14C'``); with ``partial``, keys ``expected`` does not name are not looked at."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        found: list[str] = []
        for key, value in expected.items():
            where = f"{path}.{key}"
            if key not in actual:
                found.append(f"{where} is missing, expected {value!r:.60}")
            else:
                found += state_differences(value, actual[key], partial=partial, path=where)
        if not partial:
            found += [
                f"{path}.{key} is not expected (it is {actual[key]!r:.60})"
                for key in actual
                if key not in expected
            ]
        return found
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        found = []
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found += state_differences(e, a, partial=partial, path=f"{path}[{index}]")
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        return [f"{path} has {len(actual)} items, expected {len(expected)} ({expected!r:.60})"]
    if same(expected, actual):
        return []
    return [f"{path}: {actual!r:.60}, expected {expected!r:.60}"]
