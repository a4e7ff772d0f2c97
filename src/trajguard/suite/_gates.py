"""A suite's own gating metrics (``defaults.gate``): the metrics whose regressions fail a night
besides the default ones, e.g. ``gate: [cost]``; checked against the metric table on load."""

from __future__ import annotations

import difflib

from trajguard._metric_table import METRIC_ALIASES, METRIC_NAMES, canonical_metric, unknown_metrics

__all__ = ["check_gates"]


def check_gates(names: tuple[str, ...]) -> tuple[str, ...]:
    """The metric names as the table knows them (earlier names resolved), each once, in the
    given order; ``ValueError`` naming every unknown one with the closest name."""
    known = sorted({*METRIC_NAMES, *METRIC_ALIASES})
    problems = []
    for name in unknown_metrics(names):
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" (the closest is {close[0]!r})" if close else ""
        problems.append(f"unknown metric {name!r}{hint}")
    if problems:
        raise ValueError("; ".join(problems) + f"; the metrics are {', '.join(METRIC_NAMES)}")
    return tuple(dict.fromkeys(canonical_metric(n) for n in names))
