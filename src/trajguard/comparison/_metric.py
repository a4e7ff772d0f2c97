"""A metric of the comparison: what it measures, how it is tested and banded, how it reads.

The table of metrics is :data:`trajguard._metric_table.METRIC_DESCRIPTIONS`;
:data:`trajguard.comparison._registry.METRICS` is it with each metric's evaluator, of this type.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trajguard._metric_table import Kind, MetricDescription
from trajguard.comparison import _evaluators as ev
from trajguard.comparison._joint import JointBuilder

__all__ = ["BoolArray", "Kind", "Metric"]

BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, kw_only=True)
class Metric(MetricDescription):
    """One metric of a comparison: its description in :mod:`trajguard._metric_table` (with
    how it reads, :mod:`trajguard._metric_words`) and how it is computed.

    Attributes:
        evaluate: the evaluator, ``(baseline arm, candidate arm, context) -> Evaluation``.
        joint: its p-value at every arrangement of a scenario's runs, for the scenario's
            combined gating test (:mod:`trajguard.comparison._combined_tests`).
    """

    evaluate: ev.Evaluator
    joint: JointBuilder
