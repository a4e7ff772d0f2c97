"""The suite's false-alarm budget spent mostly on pass-rate drops, and the detection figure the
report prints for the runs a night actually used."""

from __future__ import annotations

import numpy as np

from trajguard.nights import (
    TARGET_ARL,
    TARGET_NAMED,
    Counts,
    cusum,
    drop_named,
    monitor,
    runs_for,
    stream_arl,
    streams_of,
)
from trajguard.nights._detection import _crossed
from trajguard.nights._monitor import MARGIN
from trajguard.nights._streams import RISE_EXCESS
from trajguard.report import render_trend
from trajguard.results import TrendFacts, TrendPoint


def _counts(paths: int) -> Counts:
    nights = np.full(10, 20.0)
    names = [f"tool{j}" for j in range(paths)]
    return Counts(
        runs=nights,
        passes=nights / 2,
        crashes=0 * nights,
        paths={name: nights / paths for name in names} if paths > 1 else {},
        failing={name: nights / (2 * paths) for name in names} if paths > 1 else {},
    )


def test_the_suites_false_alarms_still_add_up_to_one_per_target_arl() -> None:
    streams = streams_of([_counts(1), _counts(3), _counts(2)], 10)
    # a rise spends RISE_EXCESS times the line's rate at its threshold (measured); on the line,
    # MARGIN below every threshold, the parts add up to one false alarm per TARGET_ARL
    excess = [RISE_EXCESS if key.path is None else 1.0 for key in streams.keys]
    down_h, up_h = streams.h - MARGIN, streams.h_up - MARGIN
    rate = sum(
        (1 / stream_arl(down) if side <= 0 else 0.0) + (more / stream_arl(up) if side >= 0 else 0.0)
        for side, down, up, more in zip(streams.sides, down_h, up_h, excess, strict=True)
    )
    assert abs(rate * TARGET_ARL - 1) < 1e-9
    # a drop takes the lowest threshold: a rise and a crash rise a quarter of its part each,
    # a path statistic an eighth
    assert streams.drop_threshold < streams.rise_threshold < (streams.path_threshold or 0)
    pass_rate = [i for i, key in enumerate(streams.keys) if key.metric == "pass_rate"]
    assert all(streams.h[i] == streams.drop_threshold for i in pass_rate)
    assert all(streams.h_up[i] == streams.rise_threshold for i in pass_rate)


def test_a_rise_needs_more_evidence_than_a_drop_of_the_same_size() -> None:
    # two streams at 50 %, then one falls to 30 % and the other rises to 70 % (the same
    # distance on the arcsine scale): only the drop crosses a threshold the rise does not
    runs = np.full((2, 14), 20.0)
    passes = np.full((2, 14), 10.0)
    passes[:, 8:] = [[6.0], [14.0]]
    passes[:, :8] += [[1, -1, 0, 1, -1, 0, 1, -1]] * 2
    path = cusum(passes, runs, h=3.0, h_up=30.0)
    assert [(r.stream, r.rise) for r in path.raised] == [(0, False)]
    even = cusum(passes, runs, h=3.0)
    assert sorted((r.stream, r.rise) for r in even.raised) == [(0, False), (1, True)]
    assert next(r for r in even.raised if r.rise).threshold == 3.0


def test_the_markov_chain_matches_a_simulated_cusum() -> None:
    rng = np.random.default_rng(7)
    for h, shift in ((4.4, 1.7), (5.4, 1.2), (3.0, 0.5)):
        z = rng.standard_normal((40_000, 5)) + shift
        s = np.zeros(40_000)
        hit = np.zeros(40_000, bool)
        for night in range(5):
            s = np.maximum(0.0, s + z[:, night] - 0.75)
            hit |= s > h
        assert abs(_crossed(h, shift, 0.75, 5) - hit.mean()) < 0.012


def test_more_runs_see_more_and_the_target_n_is_the_first_that_reaches_it() -> None:
    for h in (4.4, 5.4):
        seen = [drop_named(h, n) for n in (10, 20, 30, 40)]
        assert seen == sorted(seen) and seen[0] < seen[-1]
        n = runs_for(h)
        assert n is not None
        assert drop_named(h, n) >= TARGET_NAMED > drop_named(h, n - 1)
    assert runs_for(4.4) < runs_for(5.4)  # type: ignore[operator]
    assert drop_named(4.4, 0) == 0.0


def _point(i: int, runs: int) -> TrendPoint:
    return TrendPoint(
        date=f"2026-10-{i + 1:02d}",
        night_id=f"n{i:02d}",
        runs=runs,
        passes=runs // 2,
        pass_rate=0.5,
        pass_low=0.3,
        pass_high=0.7,
        crash_rate=0.0,
        crash_low=0.0,
        crash_high=0.2,
    )


def test_the_report_states_what_the_runs_it_used_can_see() -> None:
    printed = []
    for runs in (20, 40):
        points = [_point(i, runs) for i in range(6)]
        nights = [(p.date, p.night_id) for p in points]
        figures, _ = monitor([points, points, points, points], nights)
        assert figures.runs == runs and figures.drop_named is not None
        assert figures.drop_named == drop_named(figures.threshold, runs)
        assert figures.runs_for_target == runs_for(figures.threshold)
        printed.append(figures)
    twenty, forty = printed
    assert twenty.drop_named is not None and forty.drop_named is not None
    assert twenty.drop_named < TARGET_NAMED <= forty.drop_named
    facts = TrendFacts(
        store="store",
        suite="demo",
        nights=6,
        alpha=0.05,
        simulations=99,
        band=0.1,
        scenarios=(),
        monitoring=twenty,
    )
    text = render_trend(facts).replace("\n", " ")
    assert (
        f"At 20 runs a night, a 20-point drop of one scenario (45% → 25%) is named within 5 "
        f"nights on about {100 * twenty.drop_named:.0f}% of series; 80% takes "
        f"{twenty.runs_for_target} runs a night." in text
    )
