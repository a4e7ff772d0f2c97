"""Judges that a trivial rule explains better than they explain themselves (pure: reads the
``judge_calls`` and ``final_output`` columns of both sides' run tables).

For a criterion judged k ≥ 2 times per run, pooled over both sides: run r with ``s_r`` PASS
verdicts of ``k_r`` and an answer of ``L_r`` characters. The *length rule* says PASS when the
answer has at least (or, the other way, fewer than) some number of characters; an empty answer
is the shortest, so "the answer is empty" is one of these rules. Its threshold and direction
are the ones that agree with the most verdicts, chosen on the other folds of a 10-fold split
(cross-validated: a rule chosen on the runs it is scored on would flatter itself) and never a
constant (a threshold that splits the training runs).

Per run, three agreements, each unbiased for a chance about one verdict of the judge:

- with the rule: ``s_r / k_r`` where the rule says PASS, else ``1 - s_r / k_r``;
- with itself: ``1 - 2 s_r (k_r - s_r) / (k_r (k_r - 1))`` (the chance two of its verdicts on
  the run agree, as in :mod:`._judges`);
- with a constant (the one of PASS / FAIL that agrees most on the training folds).

The judge is flagged when, with 95 % confidence (Student intervals over runs of the paired
differences), the rule agrees with it better than it agrees with itself *and* better than a
constant does: answer length predicts its next verdict better than asking it again, and it is
length, not a judge that says the same thing nearly always (which the uniform-judge line
covers). A judge that never contradicts itself is never flagged (no rule beats 100 %), nor is
one at ``samples: 1`` (its self-agreement is not measured: the report says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from trajguard.comparison._judge_results import LengthRuleJudge
from trajguard.comparison._judges import UNIFORM_MIN_RUNS, judge_records
from trajguard.stats import t_ppf

__all__ = ["length_rule_judges"]

FOLDS = 10


@dataclass(frozen=True)
class _Rule:
    threshold: float
    longer_pass: bool
    """PASS when the answer has at least ``threshold`` characters (else: fewer than it)."""
    below: float
    """The longest answer of the fitted runs shorter than ``threshold`` (0: the empty one)."""

    def says(self, lengths: np.ndarray) -> np.ndarray:
        longer = lengths >= self.threshold
        return longer if self.longer_pass else ~longer


def length_rule_judges(*sides: pd.DataFrame) -> tuple[LengthRuleJudge, ...]:
    """One entry per (scenario, judge criterion) sampled at least twice per run on at least
    :data:`UNIFORM_MIN_RUNS` runs of ``sides`` whose answers have two lengths or more."""
    runs: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
    models: dict[tuple[str, str], str] = {}
    for table in sides:
        if "final_output" not in table.columns:
            continue
        for scenario, record, output in judge_records(table, extra="final_output"):
            verdicts = [s.get("verdict") for s in record.get("samples") or ()]
            if record.get("error") or len(verdicts) < 2 or not set(verdicts) <= {"PASS", "FAIL"}:
                continue
            key = (scenario, str(record.get("criterion")))
            length = len(output) if isinstance(output, str) else 0
            runs.setdefault(key, []).append((length, verdicts.count("PASS"), len(verdicts)))
            models[key] = str(record.get("model"))
    found = []
    for key in sorted(runs):
        lengths, passes, k = np.array(runs[key], dtype=float).T
        if len(lengths) < UNIFORM_MIN_RUNS or len(np.unique(lengths)) < 2:
            continue
        found.append(_judged(key, models[key], lengths, passes, k))
    return tuple(found)


def _judged(
    key: tuple[str, str], model: str, lengths: np.ndarray, passes: np.ndarray, k: np.ndarray
) -> LengthRuleJudge:
    n = len(lengths)
    share = passes / k
    own = 1 - 2 * passes * (k - passes) / (k * (k - 1))
    rule = np.empty(n)
    constant = np.empty(n)
    folds = np.random.default_rng(n * 7919 + int(passes.sum())).permutation(n) % min(FOLDS, n)
    for fold in np.unique(folds):
        train, test = folds != fold, folds == fold
        fitted = _fit(lengths[train], passes[train], k[train])
        says = fitted.says(lengths[test]) if fitted else np.full(test.sum(), _passes(train, share))
        rule[test] = np.where(says, share[test], 1 - share[test])
        constant[test] = share[test] if _passes(train, share) else 1 - share[test]
    over_self, over_self_low = _mean_low(rule - own)
    over_constant, over_constant_low = _mean_low(rule - constant)
    whole = _fit(lengths, passes, k)
    return LengthRuleJudge(
        scenario=key[0],
        criterion=key[1],
        model=model,
        runs=n,
        rule=_describe(whole),
        rule_agreement=float(rule.mean()),
        self_agreement=float(own.mean()),
        constant_agreement=float(constant.mean()),
        margin=over_self,
        margin_low=over_self_low,
        margin_over_constant=over_constant,
        margin_over_constant_low=over_constant_low,
        flagged=over_self_low > 0 and over_constant_low > 0,
    )


def _passes(train: np.ndarray, share: np.ndarray) -> bool:
    return bool(share[train].mean() >= 0.5)


def _fit(lengths: np.ndarray, passes: np.ndarray, k: np.ndarray) -> _Rule | None:
    """The threshold and direction that agree with the most verdicts of these runs, among those
    that split them (``None``: every answer has one length)."""
    values, group = np.unique(lengths, return_inverse=True)
    if len(values) < 2:
        return None
    passed = np.cumsum(np.bincount(group, weights=passes))[:-1]  # at or below each cut
    failed = np.cumsum(np.bincount(group, weights=k - passes))[:-1]
    agree_longer = failed + (passes.sum() - passed)
    agree_shorter = k.sum() - agree_longer
    cuts = (values[:-1] + values[1:]) / 2
    best_longer, best_shorter = int(agree_longer.argmax()), int(agree_shorter.argmax())
    if agree_longer[best_longer] >= agree_shorter[best_shorter]:
        return _Rule(float(cuts[best_longer]), True, float(values[best_longer]))
    return _Rule(float(cuts[best_shorter]), False, float(values[best_shorter]))


def _mean_low(values: np.ndarray) -> tuple[float, float]:
    """The mean and the lower end of its two-sided 95 % Student interval."""
    n = len(values)
    mean = float(values.mean())
    sd = float(values.std(ddof=1))
    return mean, mean - t_ppf(0.975, n - 1) * sd / math.sqrt(n)


def _describe(rule: _Rule | None) -> str:
    if rule is None:
        return "none (every answer has one length)"
    if rule.below == 0:
        return f"PASS {'unless' if rule.longer_pass else 'only when'} the answer is empty"
    chars = math.ceil(rule.threshold)
    side = "at least" if rule.longer_pass else "fewer than"
    return f"PASS when the answer has {side} {chars} characters"
