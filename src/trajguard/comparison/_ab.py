"""A/B: two variants run side by side on the same scenarios, compared two-sided.

Per scenario, the one comparison engine in two-sided mode (variant A plays the baseline); its
per-scenario verdicts come from the same ladder as a nightly's. Overall, A/B's suite-level
tests (:mod:`._ab_overall`, beside the nightly's). The answer is "helped", "hurt", "behaved
differently" or "no detectable difference" (see :class:`Answer`), with the average pass-rate
difference these runs could have detected.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pandas as pd

from trajguard import stats as st
from trajguard._text import counted
from trajguard.comparison._ab_cost import cost_clause
from trajguard.comparison._ab_overall import Overall, cmh, detectable, stratified
from trajguard.comparison._answer import Answer
from trajguard.comparison._arms import Arm, split_runs
from trajguard.comparison._compare import compare_arms
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._pairwise import PairwiseResult, Preferences, pairwise_test
from trajguard.comparison._registry import METRICS, metric
from trajguard.comparison._results import Comparison
from trajguard.comparison._verdicts import Verdict
from trajguard.errors import StoreError

__all__ = ["ABResult", "Answer", "Overall", "answered", "compare_ab"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, kw_only=True)
class ABResult:
    """An A/B comparison: the answer in words, the overall tests, and every scenario."""

    variant_a: str
    variant_b: str
    answer: Answer
    summary: str
    detectable_difference: float | None
    overall: tuple[Overall, ...]
    per_scenario: Comparison
    pairwise: PairwiseResult | None = None
    """The pairwise judge's preferences and their test (``None``: the suite has none)."""

    def metric(self, name: str) -> Overall:
        """The overall result of metric ``name``."""
        return next(o for o in self.overall if o.metric == name)

    def with_per_scenario(self, per_scenario: Comparison) -> ABResult:
        """The result with these per-scenario verdicts (a design settled them) and the answer
        and summary derived again from them."""
        return answered(replace(self, per_scenario=per_scenario))


_DIFFERENCES = {
    Verdict.REGRESSED: "worse",
    Verdict.IMPROVED: "better",
    Verdict.CHANGED: "changed",
}


def _behaviour_changes(per_scenario: Comparison) -> list[str]:
    """The per-scenario differences the report shows, one entry per scenario: the gating
    metrics that regressed, improved or changed beyond their band (the per-scenario family,
    adjusted over scenarios), as "<scenario>: <metric> <worse|better|changed> (<effect>), …";
    scenarios with a metric worse first."""
    entries = []
    for s in per_scenario.scenarios:
        moved = [m for m in s.metrics if m.kind == "gating" and m.verdict in _DIFFERENCES]
        if moved:
            worse = any(m.verdict is Verdict.REGRESSED for m in moved)
            parts = ", ".join(
                f"{metric(m.metric).label} {_DIFFERENCES[m.verdict]} "
                f"({metric(m.metric).format_effect(m.estimate, None)[0]})"
                for m in moved
            )
            entries.append((not worse, f"{s.scenario}: {parts}"))
    return [text for _, text in sorted(entries, key=lambda e: e[0])]


def _listed(entries: list[str], most: int = 3) -> str:
    shown = "; ".join(entries[:most])
    rest = len(entries) - most
    return shown + (f"; and {rest} more scenario{'s' if rest > 1 else ''}" if rest > 0 else "")


def _pairwise_clause(pairwise: PairwiseResult | None, a: str, b: str, level: str) -> list[str]:
    if pairwise is None or pairwise.estimate is None or pairwise.ci is None:
        return []
    low, high = pairwise.ci
    return [
        f"the pairwise judge preferred {b}'s answer in {pairwise.b_preferred} and {a}'s in "
        f"{pairwise.a_preferred} of {pairwise.pairs} pairs (score {pairwise.estimate:+.2f}, "
        f"{level} CI {low:+.2f} to {high:+.2f}; sign-flip p = {pairwise.p_value:.3g})"
    ]


def _summary(
    a: str,
    b: str,
    answer: Answer,
    rates: tuple[Overall, Overall],
    detectable: float | None,
    alpha: float,
    changed: list[str],
    pairwise: PairwiseResult | None = None,
) -> str:
    """The answer in words; every clause is one of the verdicts the report shows, so the
    summary cannot say two things at once."""
    level = f"{100 * (1 - alpha):.4g}%"
    found = [
        f"{metric(o.metric).label} {100 * (o.estimate or 0):+.1f} points on average over "
        f"{counted(o.scenarios, 'scenario')} ({level} CI {100 * o.ci[0]:+.1f} to "
        f"{100 * o.ci[1]:+.1f}; "
        f"CMH p = {o.p_value:.3g})"
        for o in rates
        if o.ci is not None
    ] + _pairwise_clause(pairwise, a, b, level)
    reach = (
        ""
        if detectable is None
        else f"; these runs would have detected an average "
        f"pass-rate difference of {100 * detectable:.0f} points 80% of the time"
    )
    if answer is Answer.NO_DETECTABLE_DIFFERENCE:
        return (
            f"No detectable difference between {b} and {a}"
            + (f": {found[0]}" if found else "")
            + reach
            + "."
        )
    if answer is Answer.DIFFERENT:
        return (
            f"{b} differed from {a} per scenario ({_listed(changed)}); over all scenarios "
            "its pass and crash rates did not differ significantly"
            + (f" ({found[0]})" if found else "")
            + reach
            + "."
        )
    text = f"{b} {answer.value} compared with {a}: " + "; ".join(found) + "."
    if changed:
        text += f" Per scenario: {_listed(changed)}."
    return text


def compare_ab(
    runs: pd.DataFrame,
    variant_a: str,
    variant_b: str,
    *,
    config: CompareConfig | None = None,
    preferences: Preferences | None = None,
) -> ABResult:
    """Compare variant B with variant A, per scenario and overall.

    Args:
        runs: runs of both variants (``variant`` column), one row per run.
        variant_a: the reference variant.
        variant_b: the variant being judged.
        config: settings; the comparison is made two-sided whatever ``two_sided`` says.
        preferences: the pairwise judge's preferences on pairs of these runs; their test
            joins the pass- and crash-rate tests in the Holm family of the answer.

    Raises:
        StoreError: a variant has no runs, or the table lacks a required column.
    """
    # Two-sided; no suite share: the overall stratified tests below are A/B's own.
    config = replace(config or CompareConfig(), two_sided=True, suite_share=0.0)
    if "variant" not in runs.columns:
        raise StoreError(
            "the run table has no variant column",
            path="variant",
            hint="run both variants with `trajguard ab`",
        )
    variant = runs["variant"].astype("string")
    sides: list[dict[str, Arm]] = []
    for name in (variant_a, variant_b):
        rows = runs[(variant == name).fillna(False).to_numpy(dtype=bool)]
        if rows.empty:
            known = sorted(str(v) for v in variant.dropna().unique())
            raise StoreError(
                f"no runs of variant {name!r}",
                path="variant",
                hint=f"variants in this run set: {', '.join(known) or 'none'}",
            )
        sides.append(split_runs(rows, crash_statuses=config.crash_statuses, side=name))
    arms_a, arms_b = sides
    common = sorted(arms_a.keys() & arms_b.keys())
    per_scenario = compare_arms(arms_a, arms_b, config=config)
    both = [(arms_a[s], arms_b[s]) for s in common]
    passes = [
        (int(a.passed.sum()), a.passed.size, int(b.passed.sum()), b.passed.size)
        for a, b in both
        if a.passed.size and b.passed.size
    ]
    crashes = [
        (int(a.crashed.sum()), a.runs, int(b.crashed.sum()), b.runs)
        for a, b in both
        if a.runs and b.runs
    ]
    rates = [
        cmh("pass_rate", passes, config.alpha, True),
        cmh("crash_rate", crashes, config.alpha, False),
    ]
    rng = np.random.default_rng([config.seed, zlib.crc32(f"{variant_a}|{variant_b}".encode())])
    pairwise = None
    if preferences is not None:
        pairwise = pairwise_test(
            preferences,
            alpha=config.alpha,
            rng=np.random.default_rng([config.seed, zlib.crc32(b"pairwise")]),
            resamples=config.resampling.n_resamples,
            exact_limit=config.resampling.exact_limit,
        )
    family = [o.p_value for o in rates] + ([pairwise.p_value] if pairwise else [])
    holm = [float(p) for p in st.holm(family, config.alpha)]
    rates = [replace(o, p_adjusted=p) for o, p in zip(rates, holm, strict=False)]
    if pairwise is not None:
        pairwise = replace(pairwise, p_adjusted=holm[-1])
    others = []
    for m in METRICS:
        if m.kind in ("shift", "ratio") and m.name in config.metrics:
            column = m.column
            pairs = [
                (arms_a[s].numbers[column], arms_b[s].numbers[column])
                for s in common
                if arms_a[s].numbers[column].size and arms_b[s].numbers[column].size
            ]
            if not pairs and m.conditional:  # no scenario measured it on both sides (cost)
                continue
            floor = None
            if m.kind == "ratio":
                floor = config.floor(column)
            level = 1 - config.alpha if m.name == "cost" else None
            others.append(
                stratified(m.name, pairs, floor, rng, config.resampling.n_resamples, level)
            )
    bh = st.bh([o.p_value for o in others])
    others = [replace(o, p_adjusted=float(p)) for o, p in zip(others, bh, strict=True)]
    return answered(
        ABResult(
            variant_a=variant_a,
            variant_b=variant_b,
            answer=Answer.NO_DETECTABLE_DIFFERENCE,
            summary="",
            detectable_difference=detectable(passes, config.alpha / len(family), config.power),
            overall=(*rates, *others),
            per_scenario=per_scenario,
            pairwise=pairwise,
        )
    )


def answered(result: ABResult) -> ABResult:
    """The result with its answer and summary derived from its overall rate tests, its
    pairwise judge's test (when it has one) and its per-scenario verdicts (call again after a
    design settled those verdicts, so the words follow what the report shows)."""
    config = result.per_scenario.config
    rates = (result.metric("pass_rate"), result.metric("crash_rate"))
    tests = (*rates, result.pairwise) if result.pairwise is not None else rates
    significant = [o.better for o in tests if o.p_adjusted <= config.alpha and o.better is not None]
    changed = _behaviour_changes(result.per_scenario)
    if any(not better for better in significant):
        answer = Answer.HURT
    elif significant:
        answer = Answer.HELPED
    elif changed:
        answer = Answer.DIFFERENT
    else:
        answer = Answer.NO_DETECTABLE_DIFFERENCE
    a, b = result.variant_a, result.variant_b
    summary = _summary(
        a, b, answer, rates, result.detectable_difference, config.alpha, changed, result.pairwise
    )
    cost = next((o for o in result.overall if o.metric == "cost"), None)
    return replace(result, answer=answer, summary=summary + cost_clause(b, cost, config.alpha))
