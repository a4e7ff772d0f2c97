"""The names and defaults that options and suite files are checked against before anything is
compared: the tolerance bands, the suite tests' share of alpha, the baselines a promotion keeps
and the sources ``trajguard import`` reads (the metrics are :mod:`trajguard._metric_table`'s).

It imports only the standard library, so ``trajguard --help``, ``trajguard validate`` and the
suite loader reach these tables without numpy, pandas or scipy (``trajguard.comparison`` and
``trajguard.store`` import those on import). ``tests/cli/test_catalog.py`` checks that every table
here is the one :mod:`trajguard.comparison` and :mod:`trajguard.store` use: ``compare`` reads its
bands from here, so there is one table of each.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEFAULT_KEEP",
    "IMPORT_SOURCES",
    "SUITE_SHARE",
    "TOLERANCES",
    "TOLERANCE_NAMES",
    "Tolerance",
    "canonical_tolerances",
    "tolerance",
    "tolerance_problems",
]


@dataclass(frozen=True, kw_only=True)
class Tolerance:
    """A tolerance band: how far a metric may move before a significant change is a regression.

    Attributes:
        name: the name suites and ``--tolerance`` use.
        aliases: other accepted names.
        default: the band when nothing sets it.
        scale: ``difference`` (of rates, 0 to 1), ``distance`` (of A from 1/2, 0 to 0.5),
            ``ratio`` (above 1; 1.15 tolerates ±15 %) or ``share`` (of calls or runs, 0 to 1).
        meaning: one line for help texts and reports.
    """

    name: str
    aliases: tuple[str, ...] = ()
    default: float
    scale: Literal["difference", "distance", "ratio", "share"]
    meaning: str

    def problem(self, value: float, *, given_as: str | None = None) -> str | None:
        """What is wrong with ``value`` for this band, or ``None``."""
        name = given_as or self.name
        if not math.isfinite(value) or value < 0:
            return f"{name} must be a number of at least 0, got {value}"
        if self.scale == "ratio" and value <= 1:
            return f"{name} is a ratio above 1 (1.15 tolerates ±15 %), got {value}"
        if self.scale == "difference" and value > 1:
            return f"{name} is a difference of rates (0.10 = ten points), at most 1, got {value}"
        if self.scale == "distance" and value > 0.5:
            return f"{name} is a distance of A from 1/2, at most 0.5, got {value}"
        if self.scale == "share" and value > 1:
            return f"{name} is a share (0.10 = a tenth), at most 1, got {value}"
        return None


TOLERANCES: tuple[Tolerance, ...] = (
    Tolerance(
        name="pass_rate",
        default=0.10,
        scale="difference",
        meaning="pass-rate difference (0.10 = ten points)",
    ),
    Tolerance(
        name="crash_rate",
        default=0.05,
        scale="difference",
        meaning="crash-rate difference (0.05 = five points)",
    ),
    Tolerance(
        name="steps",
        aliases=("step_count",),
        default=0.10,
        scale="distance",
        meaning="distance of A = P(candidate > baseline) + ½P(tie) from 0.5 for steps",
    ),
    Tolerance(
        name="ratio",
        aliases=("tokens", "latency"),
        default=1.15,
        scale="ratio",
        meaning="geometric-mean ratio of tokens and latency (one shared band)",
    ),
    Tolerance(
        name="cost",
        aliases=("cost_usd",),
        default=1.15,
        scale="ratio",
        meaning="geometric-mean ratio of the cost per run in US dollars",
    ),
    Tolerance(
        name="tools",
        default=0.10,
        scale="distance",
        meaning="distance of A from 0.5 for each tool's calls per run (the equivalence margin "
        "of tool usage: what 'unchanged' needs)",
    ),
    Tolerance(
        name="tool_usage",
        aliases=("tool_mix",),
        default=0.10,
        scale="share",
        meaning="total-variation distance of the tool usage (0.10 = a tenth of the calls and run "
        "ends go to other tools)",
    ),
    Tolerance(
        name="tool_order",
        default=0.20,
        scale="share",
        meaning="share of candidate runs with a tool sequence the baseline never showed, beyond "
        "the baseline's own rate of new sequences",
    ),
    Tolerance(
        name="failing_paths",
        default=0.10,
        scale="share",
        meaning="rise in the share of judged runs that fail along one path (the tool a run "
        "called most, or none; 0.10 = ten points)",
    ),
    Tolerance(
        name="resilience",
        default=0.10,
        scale="difference",
        meaning="difference of each resilience rate (over the runs that met a fault)",
    ),
)
_BY_NAME = {n: t for t in TOLERANCES for n in (t.name, *t.aliases)}
TOLERANCE_NAMES: tuple[str, ...] = tuple(sorted(_BY_NAME))
"""Every name a band is accepted under (canonical names and aliases), sorted."""

SUITE_SHARE = 0.1
"""The share of alpha the suite-level tests get by default (``CompareConfig.suite_share``)."""

DEFAULT_KEEP = 5
"""The promoted batches a baseline keeps by default, the new one included."""


def tolerance(name: str) -> Tolerance:
    """The tolerance band a name (or alias) stands for (``KeyError`` when unknown)."""
    return _BY_NAME[name]


def canonical_tolerances(values: Mapping[str, float]) -> dict[str, float]:
    """Tolerance values keyed by canonical name (aliases resolved; unknown names: KeyError)."""
    return {tolerance(name).name: float(value) for name, value in values.items()}


def tolerance_problems(values: Mapping[str, float]) -> list[str]:
    """What is wrong with tolerance values keyed by name or alias ([] when nothing is)."""
    problems = []
    for name, value in values.items():
        band = _BY_NAME.get(name)
        if band is None:
            problems.append(f"unknown tolerance {name!r} (known: {', '.join(TOLERANCE_NAMES)})")
            continue
        problem = band.problem(float(value), given_as=name)
        if problem is not None:
            problems.append(problem)
    return problems


IMPORT_SOURCES: Mapping[str, str] = {
    "inspect": "Inspect AI eval logs (.eval or .json), one run per sample and epoch",
    "promptfoo": "promptfoo results JSON (promptfoo eval -o results.json), one run per test "
    "case and repeat",
    "harbor": "Harbor job directories, one run per trial (task and attempt)",
}
"""Every source ``trajguard import`` reads → what it reads (the command line's choices)."""
