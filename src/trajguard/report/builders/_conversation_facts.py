"""The conversations of a comparison, counted from the run tables: per conversational scenario
(a run with a ``stop_reason``), each scripted turn's criteria as pass rates on each side (Wilson
intervals, a two-sided Fisher exact test), and where the conversations ended — the
``stop_reason`` mix of each side, compared by its total-variation distance with a permutation
test, as tool usage's mix is (docs/explanation/statistics.md §17)."""

from __future__ import annotations

import re
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from trajguard import stats as st
from trajguard.results import ConversationFacts, Ending, RateCount, TurnRate
from trajguard.store import criterion_outcomes

__all__ = ["conversation_facts"]

_TURN = re.compile(r"turn (\d+): (.*)", re.DOTALL)
_STREAM = 101
"""The stop-reason tests' random stream (apart from every metric's)."""


def _conversational(table: pd.DataFrame) -> pd.DataFrame:
    if not {"stop_reason", "scenario", "status"} <= set(table.columns):
        return table.iloc[0:0]
    return table[(table["status"] != "harness_error") & table["stop_reason"].notna()]


def _turn_counts(rows: pd.DataFrame) -> dict[tuple[int, str], list[int]]:
    counts: dict[tuple[int, str], list[int]] = {}
    for row in rows.to_dict("records"):
        for outcome in criterion_outcomes({"criteria": row.get("criteria")}) or ():
            found = _TURN.fullmatch(outcome.criterion)
            if found:
                held_n = counts.setdefault((int(found[1]), found[2]), [0, 0])
                held_n[0] += int(outcome.held)
                held_n[1] += 1
    return counts


def _rate(counts: list[int] | None, alpha: float) -> RateCount | None:
    if not counts or counts[1] == 0:
        return None
    low, high = st.wilson_interval(counts[0], counts[1], 1 - alpha)
    return RateCount(hits=counts[0], n=counts[1], low=float(low), high=float(high))


def _turns(base: pd.DataFrame, cand: pd.DataFrame, alpha: float) -> tuple[TurnRate, ...]:
    b, c = _turn_counts(base), _turn_counts(cand)
    out = []
    for key in sorted(set(b) | set(c)):
        rb, rc = _rate(b.get(key), alpha), _rate(c.get(key), alpha)
        p = None
        if rb is not None and rc is not None:
            p = st.fisher_pvalue(rb.hits, rb.n, rc.hits, rc.n, "two-sided")
        out.append(TurnRate(turn=key[0], criterion=key[1], baseline=rb, candidate=rc, p_value=p))
    return tuple(out)


def _endings(
    base: Sequence[str], cand: Sequence[str], key: list[int]
) -> tuple[tuple[Ending, ...], float, float | None]:
    b, c = Counter(base), Counter(cand)
    reasons = sorted(set(b) | set(c), key=lambda r: (-(b[r] + c[r]), r))
    endings = tuple(Ending(reason=r, baseline=b[r], candidate=c[r]) for r in reasons)
    if not base or not cand:
        return endings, 0.0, None
    onehot = np.array([[float(r == col) for col in reasons] for r in (*base, *cand)])
    result = st.permutation_test(
        st.tvd_statistic(onehot), len(base), len(cand), rng=np.random.default_rng(key)
    )
    return endings, float(result.statistic), float(result.greater)


def conversation_facts(
    baseline: pd.DataFrame, candidate: pd.DataFrame, *, alpha: float, seed: int = 0
) -> tuple[ConversationFacts, ...]:
    """Per scenario with conversations on either side (sorted by id), what the report shows.

    Args:
        baseline: the baseline's run table.
        candidate: the candidate's run table.
        alpha: the comparison's significance level (intervals at ``1 - alpha``).
        seed: the comparison's seed (the permutation tests' generators).
    """
    base, cand = _conversational(baseline), _conversational(candidate)
    facts = []
    for scenario in sorted(set(base["scenario"]) | set(cand["scenario"])):
        rows_b = base[base["scenario"] == scenario]
        rows_c = cand[cand["scenario"] == scenario]
        key = [seed, zlib.crc32(str(scenario).encode()), _STREAM]
        endings, tvd, p = _endings(
            [str(r) for r in rows_b["stop_reason"]], [str(r) for r in rows_c["stop_reason"]], key
        )
        facts.append(
            ConversationFacts(
                scenario=str(scenario),
                turns=_turns(rows_b, rows_c, alpha),
                endings=endings,
                endings_tvd=tvd,
                endings_p_value=p,
            )
        )
    return tuple(facts)
