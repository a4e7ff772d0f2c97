"""A pass rule: how a scorer's value becomes ``passed`` (``--pass-if``).

Grammar: ``OP VALUE`` with OP one of ``>= > <= < == !=``, or ``in V1,V2,…``. A numeric
comparison holds for a value that reads as a number (``true``/``false`` read as 1 and 0); ``==``,
``!=`` and ``in`` compare as numbers when both sides are numbers, else as text. A value the rule
cannot compare (a number rule and the value ``"C"``) is ``None``: not decided.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

from trajguard.errors import UsageError

__all__ = ["PassRule", "as_number", "parse_pass_rule"]

_ORDER: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}


@dataclass(frozen=True, kw_only=True)
class PassRule:
    """A parsed pass rule; :meth:`holds` applies it to one value."""

    text: str
    op: str
    operands: tuple[str, ...]

    def holds(self, value: object) -> bool | None:
        """Whether ``value`` passes (``None``: the rule cannot compare it)."""
        if value is None:
            return None
        if self.op in _ORDER:
            number = as_number(value)
            if number is None:
                return None
            return _ORDER[self.op](number, float(self.operands[0]))
        matched = any(_equal(value, operand) for operand in self.operands)
        return matched if self.op in ("==", "in") else not matched


def parse_pass_rule(text: str) -> PassRule:
    """Parse a rule such as ``>=0.5``, ``==C`` or ``in C,P``.

    Raises:
        UsageError: the text is not a rule.
    """
    stripped = text.strip()
    for op in (">=", "<=", "==", "!=", ">", "<"):
        if stripped.startswith(op):
            operand = stripped[len(op) :].strip()
            if not operand:
                break
            if op in _ORDER and as_number(operand) is None:
                raise UsageError(
                    f"pass rule {text!r}: {op} needs a number, not {operand!r}",
                    hint="write e.g. --pass-if '>=0.5', or --pass-if '==C' for a text value",
                )
            return PassRule(text=stripped, op=op, operands=(operand,))
    if stripped.startswith("in ") and stripped[3:].strip():
        values = tuple(v.strip() for v in stripped[3:].split(",") if v.strip())
        return PassRule(text=stripped, op="in", operands=values)
    raise UsageError(
        f"not a pass rule: {text!r}",
        hint="write OP VALUE with OP one of >= > <= < == != (e.g. '>=0.5', '==C'), "
        "or 'in V1,V2' (e.g. 'in C,P')",
    )


def as_number(value: object) -> float | None:
    """A finite number a value reads as (``true``/``false`` as 1 and 0), else ``None``."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "false"):
            return 1.0 if lowered == "true" else 0.0
        try:
            number = float(lowered)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _equal(value: object, operand: str) -> bool:
    left, right = as_number(value), as_number(operand)
    if left is not None and right is not None and not isinstance(value, bool):
        return left == right
    return str(value).strip() == operand
