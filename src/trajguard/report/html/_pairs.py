"""The report's exemplar pairs aligned for the page's side-by-side view, as ``trajguard diff``
aligns them: each exemplar run's step keys (:func:`trajguard.core.step_codes`, on the trajectory
as ``trajguard diff`` normalises it where that matters: object-repr addresses masked) interned
as small integers, the pair aligned by :func:`trajguard.core.align_codes`, the alignment put in
the page as it is. Any other pair the page's script aligns itself (sidebyside.js: the same keys
and the same dynamic programme, ported).
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from trajguard._text import printable
from trajguard.core import align_codes, step_codes, steps_of
from trajguard.core.normalize import mask_addresses
from trajguard.results import ReportDocument

__all__ = ["ExemplarKeys", "Interner", "exemplar_keys", "exemplar_pairs"]

ExemplarKeys = Mapping[str, tuple[tuple[str, str], tuple[str, str]]]


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_addresses(value)
    if isinstance(value, list):
        return [_masked(v) for v in value]
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    return value


class Interner:
    """Step keys as small integers, the same key the same integer."""

    def __init__(self) -> None:
        self._ids: dict[Hashable, int] = {}

    def codes(self, raw: str | None) -> list[int] | None:
        """The flat keys of a stored trajectory's steps (``None``: no trajectory, or one that
        is not a JSON object)."""
        if raw is None:
            return None
        try:  # nested too deep, the parser or the keys' encoder runs out of stack: no keys
            trajectory = json.loads(raw)
            if not isinstance(trajectory, dict):
                return None
            if " at 0x" in raw:
                trajectory = _masked(trajectory)
            codes = step_codes(steps_of(trajectory))
        except (ValueError, RecursionError):
            return None
        ids = self._ids
        return [ids.setdefault(key, len(ids)) for code in codes for key in code]


def exemplar_keys(document: ReportDocument) -> ExemplarKeys:
    """Scenario → the (batch id, run id) of its baseline and candidate exemplar, as the page's
    rows name them, for the scenarios the report shows an exemplar pair of."""
    keys = {}
    for name, facts in document.scenarios.items():
        exemplars = facts.explanation.exemplars if facts.explanation else None
        if exemplars is None or exemplars.baseline is None or exemplars.candidate is None:
            continue
        base, cand = exemplars.baseline, exemplars.candidate
        keys[name] = (
            (printable(base.batch_id), printable(base.run_id)),
            (printable(cand.batch_id), printable(cand.run_id)),
        )
    return keys


def _position(rows: Sequence[Sequence[Any]], key: tuple[str, str]) -> int | None:
    return next((i for i, row in enumerate(rows) if (row[1], row[0]) == key), None)


def _triples(flat: Sequence[int]) -> list[tuple[int, int, int]]:
    return [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]


def exemplar_pairs(
    keys: ExemplarKeys,
    rows: Mapping[str, Sequence[Sequence[Sequence[Any]]]],
    trajectories: Mapping[tuple[str, str], str | None],
) -> dict[str, dict[str, Any]]:
    """Scenario → its exemplar pair in the page: ``{"a": baseline position, "b": candidate
    position, "steps": [[op, A step, B step], …]}`` (positions in the page's sorted rows;
    steps from 0, ``null`` on the side that did not take the step), from the two runs' stored
    ``trajectories`` (by batch and run id)."""
    interner = Interner()
    pairs: dict[str, dict[str, Any]] = {}
    for scenario, (base, cand) in keys.items():
        if scenario not in rows or len(rows[scenario]) != 2:
            continue
        a, b = _position(rows[scenario][0], base), _position(rows[scenario][1], cand)
        first, second = (interner.codes(trajectories.get(key)) for key in (base, cand))
        if a is None or b is None or first is None or second is None:
            continue
        aligned = align_codes(_triples(first), _triples(second))
        pairs[scenario] = {"a": a, "b": b, "steps": [[s.op, s.a, s.b] for s in aligned]}
    return pairs
