"""Scenarios evaluated on several threads give the result of one thread, to the last bit."""

from __future__ import annotations

import numpy as np
import pandas as pd

from trajguard.comparison import CompareConfig, _compare, compare_runsets

TOOLS = ("search", "calc", "read")


def _runs(seed: int, batch: str, shift: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(12):
        for _ in range(25):
            seq = [TOOLS[int(k)] for k in rng.integers(0, 3, int(rng.integers(1, 5)))]
            rows.append(
                {
                    "scenario": f"s{s:02d}",
                    "batch_id": batch,
                    "variant": "base",
                    "status": "agent_error" if rng.random() < 0.05 else "ok",
                    "passed": bool(rng.random() < 0.7 - (shift if s < 4 else 0.0)),
                    "step_count": 2 * len(seq) + 1,
                    "tool_sequence": seq,
                    "tool_counts": {t: seq.count(t) for t in set(seq)},
                    "prompt_tokens": int(rng.lognormal(6, 0.3)),
                    "completion_tokens": int(rng.lognormal(4, 0.3)),
                    "duration_s": float(rng.lognormal(0, 0.4)),
                }
            )
    return pd.DataFrame(rows)


def test_threads_do_not_change_the_comparison(monkeypatch):
    baseline = pd.concat([_runs(k, f"n{k}", 0.0) for k in range(3)], ignore_index=True)
    candidate = _runs(9, "c", 0.5)
    config = CompareConfig(seed=4)
    results = []
    for threads in (1, 3):
        monkeypatch.setattr(_compare, "scenario_threads", lambda _n, t=threads: t)
        results.append(compare_runsets(baseline, candidate, config=config))
    one, several = results
    assert repr(one) == repr(several)
    assert one.regressed  # the comparison exercised the gating family, not only quiet paths
    assert len(one.drift) == 12 * 4  # 12 scenarios x 4 default gating metrics


def test_scenario_threads_are_bounded():
    assert _compare.scenario_threads(1) == 1
    assert 1 <= _compare.scenario_threads(100) <= 4
