"""Judge consistency: how often a judge's k verdicts on one run disagree, and how much of the
verdicts' variance that noise is (pure: reads the ``judge_calls`` column of a run table).

For a criterion judged k > 1 times per run, run r with ``s_r`` PASS verdicts of k has the
share of disagreeing pairs ``d_r = 2 s_r (k - s_r) / (k (k - 1))``, unbiased for the chance
``2 q_r (1 - q_r)`` that two calls of the judge on that run disagree (``q_r`` the judge's
chance of PASS on it). ``pair_disagreement`` is their mean; its interval is Wilson's over the
runs (a mean of values in [0, 1] has a variance of at most ``m (1 - m)`` per value, so that
interval is conservative). The within-run variance of one verdict is estimated by ``d_r / 2``
(unbiased for ``q_r (1 - q_r)``: the naive ``p_r (1 - p_r)`` of the k verdicts is low by
``(k - 1) / k``, so a pure-noise judge read 67 % at k = 3); the total by ``p (1 - p)`` (``p`` the
share of PASS) plus the variance of ``p``'s estimate over runs; by the law of total variance
the rest is between runs (the agent). ``noise_share`` = within / total, with a percentile
bootstrap interval over runs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from trajguard._json import loads_bounded
from trajguard.comparison._judge_results import (
    UNSTABLE_JUDGE_DISAGREEMENT,
    JudgeConsistency,
    JudgeOnce,
    UniformJudge,
)
from trajguard.stats import norm_ppf

__all__ = ["judge_consistency", "judge_records", "judged_once", "uniform_judges"]

UNIFORM_MIN_RUNS = 10
"""Runs (both sides) below which a judge that said the same every time is not flagged."""

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
            if wanted < 2 or record.get("error") or None in samples or len(samples) < 2:
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


def uniform_judges(*sides: pd.DataFrame) -> tuple[UniformJudge, ...]:
    """The judge criteria whose every verdict on the runs of ``sides`` was the same, over at
    least :data:`UNIFORM_MIN_RUNS` runs that gave at least two distinct final outputs."""
    said: dict[tuple[str, str], set[str]] = {}
    answers: dict[tuple[str, str], set[str]] = {}
    runs: dict[tuple[str, str], int] = {}
    models: dict[tuple[str, str], str] = {}
    for table in sides:
        if "judge_calls" not in table.columns or "final_output" not in table.columns:
            continue
        for scenario, raw, output in zip(
            table["scenario"], table["judge_calls"], table["final_output"], strict=True
        ):
            for record in _records(raw):
                verdicts = {str(s.get("verdict")) for s in record.get("samples") or ()}
                if record.get("error") or not verdicts <= {"PASS", "FAIL"} or not verdicts:
                    continue
                key = (str(scenario), str(record.get("criterion")))
                said.setdefault(key, set()).update(verdicts)
                answers.setdefault(key, set()).add(str(output))
                runs[key] = runs.get(key, 0) + 1
                models[key] = str(record.get("model"))
    return tuple(
        UniformJudge(
            scenario=key[0],
            criterion=key[1],
            model=models[key],
            verdict="PASS" if said[key] == {"PASS"} else "FAIL",
            runs=runs[key],
            answers=len(answers[key]),
        )
        for key in sorted(said)
        if len(said[key]) == 1 and runs[key] >= UNIFORM_MIN_RUNS and len(answers[key]) >= 2
    )


def judge_records(
    table: pd.DataFrame, *, extra: str
) -> Iterator[tuple[str, Mapping[str, Any], Any]]:
    """Each judged criterion's record of each run of ``table``: its scenario, the record and
    the run's ``extra`` column (nothing when a column is missing)."""
    if "judge_calls" not in table.columns or extra not in table.columns:
        return
    for scenario, raw, value in zip(
        table["scenario"], table["judge_calls"], table[extra], strict=True
    ):
        for record in _records(raw):
            yield str(scenario), record, value


def _records(raw: Any) -> Iterable[Mapping[str, Any]]:
    if not isinstance(raw, str) or not raw:
        return ()
    try:
        found = loads_bounded(raw)
    except ValueError:
        return ()
    return [r for r in found if isinstance(r, Mapping)] if isinstance(found, list) else ()


def _noise_share(shares: np.ndarray, within: np.ndarray) -> np.ndarray:
    """The noise share of each row of resampled runs (``shares``: each run's PASS share,
    ``within``: its unbiased within-run variance); NaN where there is no variance at all."""
    p = shares.mean(axis=-1)
    runs = shares.shape[-1]
    spread = shares.var(axis=-1, ddof=1) / runs if runs > 1 else np.zeros_like(p)
    total = p * (1 - p) + spread
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, within.mean(axis=-1) / total, np.nan)
    return np.clip(share, 0.0, 1.0)


BOOTSTRAP = 999
_Z = norm_ppf(0.975)


def _wilson(mean: float, n: int) -> tuple[float, float]:
    """Wilson's 95 % score interval for a mean ``mean`` of ``n`` values in [0, 1]."""
    centre = (mean + _Z * _Z / (2 * n)) / (1 + _Z * _Z / n)
    half = _Z / (1 + _Z * _Z / n) * math.sqrt(mean * (1 - mean) / n + _Z * _Z / (4 * n * n))
    return (0.0 if mean == 0 else max(0.0, centre - half)), (
        1.0 if mean == 1 else min(1.0, centre + half)
    )


def _consistency(
    scenario: str, criterion: str, side: Side, model: str, samples: int, judged: list[list[int]]
) -> JudgeConsistency:
    k = np.array([len(v) for v in judged], dtype=float)
    passes = np.array([sum(v) for v in judged], dtype=float)
    pairs = 2 * passes * (k - passes) / (k * (k - 1))
    shares = passes / k
    disagreeing = int((pairs > 0).sum())
    runs = len(judged)
    pair = float(pairs.mean())
    low, high = _wilson(pair, runs)
    share = float(_noise_share(shares, pairs / 2))
    share_low = share_high = None
    if not np.isnan(share):
        draw = np.random.default_rng(runs * 7919 + int(passes.sum()))
        pick = draw.integers(0, runs, size=(BOOTSTRAP, runs))
        resampled = _noise_share(shares[pick], pairs[pick] / 2)
        resampled = resampled[~np.isnan(resampled)]
        if resampled.size:
            share_low, share_high = (float(x) for x in np.quantile(resampled, [0.025, 0.975]))
    return JudgeConsistency(
        scenario=scenario,
        criterion=criterion,
        side=side,
        model=model,
        samples=samples,
        runs=runs,
        disagreeing_runs=disagreeing,
        disagreement=disagreeing / runs,
        noise_share=None if np.isnan(share) else share,
        verdict_pass_rate=float(passes.sum() / k.sum()),
        unstable=low > UNSTABLE_JUDGE_DISAGREEMENT,
        pair_disagreement=pair,
        pair_disagreement_low=low,
        pair_disagreement_high=high,
        noise_share_low=share_low,
        noise_share_high=share_high,
    )
