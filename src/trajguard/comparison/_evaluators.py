"""Each metric's evaluator: two arms and a context in, an :class:`Evaluation` out.

The registry (:mod:`trajguard.comparison._registry`) names one of these per metric; the context
carries what the metric's settings resolved to for this scenario.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from trajguard import stats as st
from trajguard.comparison._arms import Arm
from trajguard.comparison._evaluation import Evaluation, Resampling, untestable
from trajguard.comparison._numeric import evaluate_rate, evaluate_ratio, evaluate_shift
from trajguard.comparison._paths import evaluate_failing_paths
from trajguard.comparison._tools import evaluate_sequences, evaluate_tools

__all__ = [
    "Context",
    "Evaluator",
    "cost",
    "crash_rate",
    "failing_paths",
    "flag_rate",
    "pass_rate",
    "ratio",
    "shift",
    "tool_order",
    "tool_usage",
]


@dataclass(frozen=True, kw_only=True)
class Context:
    """What one metric of one scenario is evaluated with.

    Attributes:
        label: the metric's label (used in effect descriptions and notes).
        column: the run-table column of numeric metrics.
        margin: the metric's tolerance band (0.0 for metrics without one).
        equivalence: the margin of its equivalence test (the band, unless the metric names
            another).
        floor: values below this count as this before taking logs (ratio metrics).
        alpha: level of intervals and equivalence tests.
        resampling: permutation settings.
        rng: this metric's own generator.
        shared: arrangements shared by the tool metrics (they permute the same runs).
    """

    label: str
    column: str
    margin: float
    equivalence: float
    floor: float
    alpha: float
    resampling: Resampling
    rng: np.random.Generator
    shared: st.Arrangements


Evaluator = Callable[[Arm, Arm, Context], Evaluation]


def pass_rate(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """Pass rate over judged runs."""
    return evaluate_rate(
        int(b.passed.sum()),
        b.passed.size,
        int(c.passed.sum()),
        c.passed.size,
        margin=ctx.margin,
        alpha=ctx.alpha,
        higher_is_better=True,
        label=ctx.label,
    )


def crash_rate(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """Crash rate over behavioural runs."""
    return evaluate_rate(
        int(b.crashed.sum()),
        b.runs,
        int(c.crashed.sum()),
        c.runs,
        margin=ctx.margin,
        alpha=ctx.alpha,
        higher_is_better=False,
        label=ctx.label,
    )


def flag_rate(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """A yes/no result judged on some runs only (resilience: the runs that met a fault)."""
    (x_b, n_b), (x_c, n_c) = (_judged(arm.flag(ctx.column)) for arm in (b, c))
    return evaluate_rate(
        x_b,
        n_b,
        x_c,
        n_c,
        margin=ctx.margin,
        alpha=ctx.alpha,
        higher_is_better=True,
        label=ctx.label,
    )


def _judged(values: np.ndarray) -> tuple[int, int]:
    judged = ~np.isnan(values)
    return int((values[judged] == 1.0).sum()), int(judged.sum())


def shift(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """A count (steps): the rank shift A."""
    return evaluate_shift(
        b.numbers[ctx.column],
        c.numbers[ctx.column],
        margin=ctx.margin,
        alpha=ctx.alpha,
        rng=ctx.rng,
        resampling=ctx.resampling,
        label=ctx.label,
    )


def ratio(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """A positive quantity (tokens, latency): the geometric-mean ratio."""
    return evaluate_ratio(
        b.numbers[ctx.column],
        c.numbers[ctx.column],
        ratio_margin=ctx.margin,
        alpha=ctx.alpha,
        rng=ctx.rng,
        resampling=ctx.resampling,
        label=ctx.label,
        floor=ctx.floor,
    )


def cost(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """The cost per run: the geometric-mean ratio, over the runs whose cost is known. A side
    without a known cost is not tested, and the note says why (never a cost of 0)."""
    evaluation = ratio(b, c, ctx)
    unknown = [
        side
        for side, arm in (("baseline", b), ("candidate", c))
        if arm.runs and not arm.numbers[ctx.column].size
    ]
    if not unknown:
        return evaluation
    note = (
        f"cost unknown for every {' and '.join(unknown)} run: their model has no price "
        "(give it in the suite's prices:, in US dollars per million tokens): not tested"
    )
    return replace(evaluation, notes=(note,))


def _unrecorded_tools(evaluation: Evaluation, b: Arm, c: Arm) -> Evaluation:
    """A tool metric of arms one of which records no tool calls: not tested, and why."""
    side = "baseline" if not b.tools_recorded else "candidate"
    note = (
        f"the {side} runs record no tool calls (imported from logs without trajectories): "
        "not tested"
    )
    untested = untestable(
        evaluation.baseline,
        evaluation.candidate,
        evaluation.effect,
        tost=evaluation.tost is not None,
    )
    return replace(untested, notes=(note,))


def _tools_known(
    metric: Callable[[Arm, Arm, Context], Evaluation],
) -> Callable[[Arm, Arm, Context], Evaluation]:
    """A tool metric that is not tested where a side's tool use is unknown."""

    def evaluate(b: Arm, c: Arm, ctx: Context) -> Evaluation:
        evaluation = metric(b, c, ctx)
        if b.tools_recorded and c.tools_recorded:
            return evaluation
        return _unrecorded_tools(evaluation, b, c)

    evaluate.__doc__ = metric.__doc__
    evaluate.__name__ = metric.__name__
    return evaluate


def _arrangements(b: Arm, c: Arm, ctx: Context) -> st.Arrangements | np.random.Generator:
    """The shared arrangements of the scenario's runs, or this metric's own generator when some
    runs are missing from the tool metrics (the shared ones arrange every run)."""
    every = bool(b.tools_mask().all() and c.tools_mask().all())
    return ctx.shared if every else ctx.rng


@_tools_known
def tool_usage(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """Which tools, how often: the calls-by-tool table."""
    return evaluate_tools(
        b.known_tool_counts(),
        c.known_tool_counts(),
        margin=ctx.margin,
        equivalence=ctx.equivalence,
        alpha=ctx.alpha,
        rng=_arrangements(b, c, ctx),
        resampling=ctx.resampling,
    )


@_tools_known
def tool_order(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """The order of tool calls: edit distances between sequences."""
    return evaluate_sequences(
        b.known_tool_sequences(),
        c.known_tool_sequences(),
        margin=ctx.margin,
        rng=_arrangements(b, c, ctx),
        resampling=ctx.resampling,
    )


@_tools_known
def failing_paths(b: Arm, c: Arm, ctx: Context) -> Evaluation:
    """Where the failures went: the largest rise of a failing path's share."""
    return evaluate_failing_paths(
        b, c, margin=ctx.margin, rng=ctx.shared, resampling=ctx.resampling
    )
