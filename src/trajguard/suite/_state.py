"""A scenario's ``state:``: the world its tools share in one run, seeded from the suite file.

Each run gets its own deep copy of the seed (runs never share state); tools that take a
keyword-only ``state`` parameter (builtin agents), ``ctx.state`` (callable agents) or the
``{state}`` file (command agents, which write theirs back to ``{final_state}``) read and change
it; what it holds when the run ends is kept on the trajectory (``extra.final_state``), where
``final_state`` criteria read it. The seed is JSON-like: objects with text keys, lists, text,
numbers, booleans and null (a YAML date is refused: quote it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator

__all__ = ["MAX_STATE_DEPTH", "JsonObject", "check_json_like"]

MAX_STATE_DEPTH = 32


def check_json_like(value: Any, where: str = "state", depth: int = 0) -> None:
    """Refuse a value JSON cannot hold as it is.

    Raises:
        ValueError: naming where in the value the problem is.
    """
    if depth > MAX_STATE_DEPTH:
        raise ValueError(f"{where} is nested deeper than {MAX_STATE_DEPTH} levels")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where} has the key {key!r}, which is not text: quote it")
            check_json_like(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_json_like(item, f"{where}[{index}]", depth + 1)
    elif not (value is None or isinstance(value, str | int | float | bool)):
        raise ValueError(
            f"{where} is a {type(value).__name__} ({value!r:.40}), which JSON cannot hold: "
            "quote it to keep it as text"
        )


def _json_like(value: dict[str, Any]) -> dict[str, Any]:
    check_json_like(value)
    return value


JsonObject = Annotated[dict[str, Any], AfterValidator(_json_like)]
"""A mapping JSON can hold as it is (refused with where the problem is)."""
