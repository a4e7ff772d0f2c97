"""Regular expressions from a suite file, refused when their matching time can explode.

Python's ``re`` backtracks and holds the interpreter while it does: a pattern such as
``(a+)+$`` takes time exponential in the text's length, and no thread or timeout can stop it.
So a pattern a criterion matches against what an agent produced is checked when the suite
loads, on its parsed form, and refused when it has one of the two shapes that cause
exponential backtracking:

* a repeat of varying count inside a repeat that is unbounded (``(a+)+``, ``(\\w*)*``,
  ``(x+y?){2,}``; ``(ab{3})+`` is allowed);
* an alternation inside an unbounded repeat whose branches do not each start with their own
  literal character (``(a|ab)*``, ``(foo|.oo)+``; ``(get|put)+`` and ``(\\d|x)+``, a set of
  characters, are allowed).

Patterns are at most :data:`MAX_PATTERN_CHARS` long, and the text matched is at most
:data:`MAX_SUBJECT_CHARS`: a longer value does not match, and the reason says why.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11 moved the parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse

__all__ = ["MAX_PATTERN_CHARS", "MAX_SUBJECT_CHARS", "compile_bounded"]

MAX_PATTERN_CHARS = 1000
MAX_SUBJECT_CHARS = 10_000
_REPEATS = frozenset({sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT})
_UNBOUNDED = 100  # a repeat allowing more than this many copies counts as unbounded
_FIX = (
    "write it without a repeat inside a repeat, or with an alternation whose branches start "
    "differently"
)


def compile_bounded(pattern: str) -> re.Pattern[str]:
    """The compiled pattern.

    Raises:
        ValueError: it does not compile, is too long, or could backtrack exponentially (the
            message says which part and how to fix it).
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"the regular expression is longer than {MAX_PATTERN_CHARS} characters")
    try:
        compiled = re.compile(pattern)
        parsed = sre_parse.parse(pattern)
    except re.error as exc:
        raise ValueError(f"not a valid regular expression: {exc}") from None
    problem = _explosive(list(parsed), inside_unbounded=False)
    if problem:
        raise ValueError(
            f"the regular expression {pattern!r} could take exponential time ({problem}): {_FIX}"
        )
    return compiled


def _explosive(items: list[tuple[Any, Any]], *, inside_unbounded: bool) -> str | None:
    for op, value in items:
        if op in _REPEATS:
            low, high, body = value
            unbounded = high == sre_parse.MAXREPEAT or high > _UNBOUNDED
            if inside_unbounded and low != high:
                return "a repeat inside an unbounded repeat"
            if unbounded and _has_repeat(list(body)):
                return "a repeat inside an unbounded repeat"
            found = _explosive(list(body), inside_unbounded=inside_unbounded or unbounded)
            if found:
                return found
        elif op == sre_parse.BRANCH:
            branches = value[1]
            if inside_unbounded and not _distinct_starts(branches):
                return "an alternation with branches that start alike inside an unbounded repeat"
            for branch in branches:
                found = _explosive(list(branch), inside_unbounded=inside_unbounded)
                if found:
                    return found
        elif op == sre_parse.SUBPATTERN:
            found = _explosive(list(value[-1]), inside_unbounded=inside_unbounded)
            if found:
                return found
        elif op in (sre_parse.ASSERT, sre_parse.ASSERT_NOT):
            found = _explosive(list(value[1]), inside_unbounded=inside_unbounded)
            if found:
                return found
    return None


def _has_repeat(items: list[tuple[Any, Any]]) -> bool:
    for op, value in items:
        if op in _REPEATS and value[0] != value[1]:
            return True
        if op == sre_parse.SUBPATTERN and _has_repeat(list(value[-1])):
            return True
        if op == sre_parse.BRANCH and any(_has_repeat(list(b)) for b in value[1]):
            return True
    return False


def _distinct_starts(branches: list[Any]) -> bool:
    starts = []
    for branch in branches:
        items = list(branch)
        if not items or items[0][0] != sre_parse.LITERAL:
            return False
        starts.append(items[0][1])
    return len(set(starts)) == len(starts)
