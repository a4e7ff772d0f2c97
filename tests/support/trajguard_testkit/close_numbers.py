"""Committed outputs compared as a reader would: the same words, and numbers equal up to the
last bits of a double, where CPUs round differently (another CPU's fused multiply-add or vector
width moves a sum by about 1e-16 of its size; that is not a change of behaviour)."""

from __future__ import annotations

import difflib
import math
import re

__all__ = ["REL_TOL", "assert_same_output", "perturbed"]

REL_TOL = 1e-9
"""Numbers this close (relative) are the same number; a real change of a statistic moves it by
far more. ABS_TOL covers values that cancel to about zero."""
_ABS_TOL = 1e-12
_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_DECIMAL = re.compile(r"(?<![\w#.-])-?\d+\.\d+(?:[eE][+-]?\d+)?(?![\w.])")
"""A number with a fraction standing on its own (not inside a hash, an id or a colour)."""


def assert_same_output(ours: str, theirs: str, *, what: str, hint: str = "") -> None:
    """Fail unless ``ours`` and ``theirs`` have the same text between their numbers and
    numbers equal within :data:`REL_TOL` (the message shows the first line that differs)."""
    words_ours, words_theirs = _NUMBER.split(ours), _NUMBER.split(theirs)
    numbers = list(zip(_NUMBER.findall(ours), _NUMBER.findall(theirs), strict=False))
    same = words_ours == words_theirs and all(
        a == b or math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=_ABS_TOL)
        for a, b in numbers
    )
    if same:
        return
    diff = difflib.unified_diff(ours.splitlines(), theirs.splitlines(), lineterm="", n=0)
    shown = "\n".join(list(diff)[2:8])
    raise AssertionError(f"{what} differs{': ' + hint if hint else ''}\n{shown}")


def perturbed(text: str, *, ulps: int = 3) -> str:
    """``text`` with every number that has a fraction moved by ``ulps`` units in its last place
    (what another CPU's rounding does), written back with Python's shortest repr."""

    def move(match: re.Match[str]) -> str:
        value = float(match.group())
        if value == 0.0:
            return match.group()
        for _ in range(ulps):
            value = math.nextafter(value, math.inf)
        return repr(value)

    return _DECIMAL.sub(move, text)
