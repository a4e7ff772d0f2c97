"""Judge consistency: how often a judge's k verdicts on one run disagree, and how much of the
verdicts' variance that noise is (pure: reads the ``judge_calls`` column of a run table).

For a criterion judged k > 1 times per run, with ``v_rj`` the j-th verdict (1 PASS, 0 FAIL) of
run r: the total variance of all verdicts is ``p (1 - p)`` (``p`` the share of PASS); the
within-run variance is the mean over runs of each run's own ``p_r (1 - p_r)``; by the law of
total variance the rest is between runs (the agent). ``noise_share`` = within / total.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import pandas as pd

from trajguard.compare._results import UNSTABLE_JUDGE_DISAGREEMENT, JudgeConsistency, JudgeOnce

__all__ = ["judge_consistency", "judged_once"]

Side = Literal["baseline", "candidate"]


def judge_consistency(runs: pd.DataFrame, side: Side) -> tuple[JudgeConsistency, ...]:
    """One entry per (scenario, judge criterion) sampled more than once in ``runs``."""
    if "judge_calls" not in runs.columns:
        return ()
    verdicts: dict[tuple[str, str], list[list[int]]] = {}
    models: dict[tuple[str, str], tuple[str, int]] = {}
    for scenario, raw in zip(runs["scenario"], runs["judge_calls"], strict=True):
        for record in _records(raw):
            samples = [s.get("verdict") for s in record.get("samples") or ()]
            wanted = int(record.get("samples_wanted") or len(samples))
            if wanted < 2 or record.get("error") or None in samples or not samples:
                continue
            key = (str(scenario), str(record.get("criterion")))
            verdicts.setdefault(key, []).append([int(v == "PASS") for v in samples])
            models[key] = (str(record.get("model")), wanted)
    return tuple(
        _consistency(scenario, criterion, side, *models[(scenario, criterion)], judged)
        for (scenario, criterion), judged in sorted(verdicts.items())
    )


def judged_once(runs: pd.DataFrame, side: Side) -> tuple[JudgeOnce, ...]:
    """One entry per (scenario, judge criterion) that gave one verdict per run in ``runs``."""
    if "judge_calls" not in runs.columns:
        return ()
    decided: dict[tuple[str, str], int] = {}
    models: dict[tuple[str, str], str] = {}
    for scenario, raw in zip(runs["scenario"], runs["judge_calls"], strict=True):
        for record in _records(raw):
            if int(record.get("samples_wanted") or 1) != 1:
                continue
            key = (str(scenario), str(record.get("criterion")))
            decided[key] = decided.get(key, 0) + (record.get("held") is not None)
            models[key] = str(record.get("model"))
    return tuple(
        JudgeOnce(scenario=scenario, criterion=criterion, side=side, model=models[key], runs=n)
        for key, n in sorted(decided.items())
        for scenario, criterion in [key]
    )


def _records(raw: Any) -> Iterable[Mapping[str, Any]]:
    if not isinstance(raw, str) or not raw:
        return ()
    try:
        found = json.loads(raw)
    except ValueError:
        return ()
    return [r for r in found if isinstance(r, Mapping)] if isinstance(found, list) else ()


def _consistency(
    scenario: str, criterion: str, side: Side, model: str, samples: int, judged: list[list[int]]
) -> JudgeConsistency:
    disagreeing = sum(1 for v in judged if 0 < sum(v) < len(v))
    every = [x for v in judged for x in v]
    p = sum(every) / len(every)
    total = p * (1 - p)
    within = sum((sum(v) / len(v)) * (1 - sum(v) / len(v)) for v in judged) / len(judged)
    disagreement = disagreeing / len(judged)
    return JudgeConsistency(
        scenario=scenario,
        criterion=criterion,
        side=side,
        model=model,
        samples=samples,
        runs=len(judged),
        disagreeing_runs=disagreeing,
        disagreement=disagreement,
        noise_share=None if total == 0 else min(1.0, within / total),
        verdict_pass_rate=p,
        unstable=disagreement > UNSTABLE_JUDGE_DISAGREEMENT,
    )
