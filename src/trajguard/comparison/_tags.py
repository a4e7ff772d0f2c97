"""Results grouped by tag (``tags:`` of a scenario, or a ``scenarios_from`` column): the pass
rate of each tag's scenarios on both sides, and the suite-level stratified test of the pass
rate restricted to them (Cochran-Mantel-Haenszel over the tag's scenarios, each scenario's runs
arranged within it, on the arrangements its own tests drew). Diagnostic: the tag tests are
Holm-adjusted among themselves and never gate a night."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from trajguard import stats as st
from trajguard.comparison._arms import Arm
from trajguard.comparison._combined_tests import _random_rows, _rate_counts
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._results import TagGroup

__all__ = ["tag_groups"]


def _rate(arms: Sequence[Arm]) -> float | None:
    judged = sum(int(a.passed.size) for a in arms)
    return None if judged == 0 else sum(int(a.passed.sum()) for a in arms) / judged


def tag_groups(
    arms_b: Mapping[str, Arm],
    arms_c: Mapping[str, Arm],
    tags: Mapping[str, Sequence[str]],
    shared: Mapping[str, st.Arrangements],
    config: CompareConfig,
) -> tuple[TagGroup, ...]:
    """One group per tag of the compared scenarios, sorted by tag."""
    common = sorted(arms_b.keys() & arms_c.keys())
    members: dict[str, list[str]] = {}
    for scenario in common:
        for tag in dict.fromkeys(tags.get(scenario, ())):
            members.setdefault(tag, []).append(scenario)
    groups: list[tuple[str, list[str], float | None, float | None]] = []
    for tag in sorted(members):
        scenarios = members[tag]
        judged = [s for s in scenarios if arms_b[s].passed.size and arms_c[s].passed.size]
        estimate = (
            float(np.mean([arms_c[s].passed.mean() - arms_b[s].passed.mean() for s in judged]))
            if judged
            else None
        )
        p = (
            _stratified_p(
                [(arms_b[s], arms_c[s]) for s in judged], [shared[s] for s in judged], config
            )
            if judged
            else None
        )
        groups.append((tag, scenarios, estimate, p))
    tested = [p for *_, p in groups if p is not None]
    adjusted = iter(st.holm(tested).tolist()) if tested else iter(())
    return tuple(
        TagGroup(
            tag=tag,
            scenarios=len(scenarios),
            pass_rate_baseline=_rate([arms_b[s] for s in scenarios]),
            pass_rate_candidate=_rate([arms_c[s] for s in scenarios]),
            estimate=estimate,
            p_value=p,
            p_adjusted=None if p is None else float(next(adjusted)),
        )
        for tag, scenarios, estimate, p in groups
    )


def _stratified_p(
    arms: Sequence[tuple[Arm, Arm]], shared: Sequence[st.Arrangements], config: CompareConfig
) -> float:
    rows = [_random_rows(s, config.resampling.n_resamples) for s in shared]
    x_c, n_c, t, n = _rate_counts(arms, rows, "pass_rate")
    z = st.cmh_scores(x_c, n_c, t, n)
    p = st.two_sided_rank_pvalues(z) if config.two_sided else st.rank_pvalues(z)
    return float(p[0])
