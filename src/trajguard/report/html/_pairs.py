"""The report's exemplar pairs aligned for the page's side-by-side view, as ``trajguard diff``
aligns them (:func:`trajguard.core.align_steps` on the stored trajectories, object-repr
addresses masked as the normalisation masks them), the alignment put in the page as it is. Any
other pair the page's script aligns itself (sidebyside.js: the same step keys and the same
dynamic programme, ported).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from trajguard._text import printable
from trajguard.core import align_steps
from trajguard.core.normalize import mask_addresses
from trajguard.results import ReportDocument

__all__ = ["ExemplarKeys", "exemplar_keys", "exemplar_pairs", "parsed"]

ExemplarKeys = Mapping[str, tuple[tuple[str, str], tuple[str, str]]]


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return mask_addresses(value)
    if isinstance(value, list):
        return [_masked(v) for v in value]
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    return value


def parsed(raw: str | None) -> dict[str, Any] | None:
    """A stored trajectory as ``trajguard diff`` sees it where the alignment looks (object-repr
    addresses masked); ``None`` for no trajectory, one that is not a JSON object, or one nested
    deeper than the parser's stack."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict):
        return None
    masked: dict[str, Any] = _masked(value) if " at 0x" in raw else value
    return masked


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


def exemplar_pairs(
    keys: ExemplarKeys,
    rows: Mapping[str, Sequence[Sequence[Sequence[Any]]]],
    trajectories: Mapping[tuple[str, str], str | None],
) -> dict[str, dict[str, Any]]:
    """Scenario → its exemplar pair in the page: ``{"a": baseline position, "b": candidate
    position, "steps": [[op, A step, B step], …]}`` (positions in the page's sorted rows;
    steps from 0, ``null`` on the side that did not take the step), from the two runs' stored
    ``trajectories`` (by batch and run id)."""
    pairs: dict[str, dict[str, Any]] = {}
    for scenario, (base, cand) in keys.items():
        if scenario not in rows or len(rows[scenario]) != 2:
            continue
        a, b = _position(rows[scenario][0], base), _position(rows[scenario][1], cand)
        first, second = (parsed(trajectories.get(key)) for key in (base, cand))
        if a is None or b is None or first is None or second is None:
            continue
        try:
            aligned = align_steps(first, second).steps
        except RecursionError:  # nested deeper than the keys' encoder's stack
            continue
        pairs[scenario] = {"a": a, "b": b, "steps": [[s.op, s.a, s.b] for s in aligned]}
    return pairs
