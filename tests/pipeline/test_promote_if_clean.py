"""A rolling baseline: a clean night is promoted, a failed one is not, and the report says
which (the recorded real-model nights of the demo suite, compared without a model)."""

from __future__ import annotations

import json
from pathlib import Path

from trajguard import pipeline

NIGHTS = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "real-nights-2026-12-01"


def _night(name: str, tmp_path: Path, baselines: Path, store: Path) -> pipeline.CompareOutcome:
    return pipeline.compare(
        baselines / "demo",
        NIGHTS / name,
        report=tmp_path / name / "report.md",
        options=pipeline.ReportOptions(plots=False),
        store=pipeline.StoreRequest(location=str(store), promote_to=baselines),
    )


def test_a_clean_night_rolls_the_baseline_and_a_failed_one_does_not(tmp_path: Path) -> None:
    baselines, store = tmp_path / "baselines", tmp_path / "store"
    pipeline.promote(NIGHTS / "unedited-seed1", baselines=baselines)
    pinned = json.loads((baselines / "demo" / "manifest.json").read_text())["batch_id"]

    clean = _night("unedited-seed2", tmp_path, baselines, store)
    assert clean.exit_code == 0
    assert clean.document.trend is not None and clean.document.trend.promotion is not None
    assert clean.document.trend.promotion.promoted, clean.document.trend.promotion.reason
    manifest = json.loads((baselines / "demo" / "manifest.json").read_text())
    assert manifest["promoted_by"] == pipeline.ROLLING
    assert manifest["batch_id"] != pinned
    assert "**Baseline: promoted.**" in (tmp_path / "unedited-seed2" / "report.md").read_text()

    failed = _night("edited-seed1", tmp_path, baselines, store)
    assert failed.exit_code == 1
    assert failed.document.trend is not None and failed.document.trend.promotion is not None
    assert not failed.document.trend.promotion.promoted
    assert "not clean" in failed.document.trend.promotion.reason
    after = json.loads((baselines / "demo" / "manifest.json").read_text())
    assert after["batch_id"] == manifest["batch_id"]
    report = (tmp_path / "edited-seed1" / "report.md").read_text()
    assert "**Baseline: not promoted.** the night is not clean" in report
    # the trend knows the pinned anchor behind the rolling baseline
    trend = failed.document.trend
    multiply = next(s for s in trend.scenarios if s.scenario == "multiply")
    assert multiply.drift is not None and not multiply.drift.pinned
    assert multiply.anchor_drift is not None and multiply.anchor_drift.batch == pinned


def test_the_boiling_frog_guard_refuses_a_clean_night_after_a_slide(tmp_path: Path) -> None:
    from trajguard_testkit.nights import night

    from trajguard.nights import record_night

    baselines, store = tmp_path / "baselines", tmp_path / "store"
    pipeline.promote(NIGHTS / "unedited-seed1", baselines=baselines)
    anchor = json.loads((baselines / "demo" / "manifest.json").read_text())["batch_id"]
    # five earlier nights against the same pinned anchor, multiply sliding far below it
    for i in range(5):
        record_night(
            store,
            night(
                f"old{i}",
                date=f"2026-11-{20 + i}",
                rates={"multiply": 0.1},
                baseline_rates={"multiply": 0.9},
                baseline_batch=anchor,
                seed=i,
            ),
        )
    clean = _night("unedited-seed2", tmp_path, baselines, store)
    assert clean.exit_code == 0
    assert clean.document.trend is not None and clean.document.trend.promotion is not None
    promotion = clean.document.trend.promotion
    assert not promotion.promoted
    assert "boiling-frog guard" in promotion.reason and "multiply" in promotion.reason
    after = json.loads((baselines / "demo" / "manifest.json").read_text())
    assert after["batch_id"] == anchor and "promoted_by" not in after
    assert (
        "**Baseline: not promoted.** boiling-frog guard"
        in (tmp_path / "unedited-seed2" / "report.md").read_text()
    )


def test_a_clean_night_after_an_alarm_since_the_baseline_is_not_promoted(tmp_path: Path) -> None:
    from trajguard_testkit.nights import night

    from trajguard.nights import record_night

    baselines, store = tmp_path / "baselines", tmp_path / "store"
    pipeline.promote(NIGHTS / "unedited-seed1", baselines=baselines)
    anchor = json.loads((baselines / "demo" / "manifest.json").read_text())["batch_id"]
    # against the same baseline: multiply steady at 95 %, then two nights at 10 % (the alarm)
    for i, rate in enumerate([0.95] * 5 + [0.1] * 2):
        record_night(
            store,
            night(
                f"n{i}",
                date=f"2026-11-{20 + i}",
                rates={"multiply": rate},
                baseline_rates={"multiply": 0.6},
                baseline_batch=anchor,
                seed=i,
            ),
        )
    clean = _night("unedited-seed2", tmp_path, baselines, store)
    assert clean.exit_code == 0
    trend = clean.document.trend
    assert trend is not None and trend.promotion is not None
    multiply = next(s for s in trend.scenarios if s.scenario == "multiply")
    (alarm,) = [a for a in multiply.alarms if a.harmful and a.metric == "pass_rate"]
    assert alarm.start_night_id == "n5" and alarm.raised_night_id in ("n5", "n6")
    # (the simulated nights' runs all take the calculator path and the real night's do not, so
    # once the real night brings a second path the same drop shows on the path statistics too)
    assert not trend.promotion.promoted
    assert "the trend raised an alarm since the baseline was set in multiply" in (
        trend.promotion.reason
    )
    after = json.loads((baselines / "demo" / "manifest.json").read_text())
    assert after["batch_id"] == anchor


def _gated(tmp_path: Path, baselines: Path, store: Path, *, gate: bool) -> pipeline.CompareOutcome:
    return pipeline.compare(
        baselines / "demo",
        NIGHTS / "unedited-seed2",
        report=tmp_path / str(gate) / "report.md",
        options=pipeline.ReportOptions(plots=False),
        store=pipeline.StoreRequest(location=str(store), fail_on_change=gate),
    )


def test_fail_on_change_exits_5_when_this_night_raises_a_harmful_alarm(tmp_path: Path) -> None:
    from trajguard_testkit.nights import night

    from trajguard.nights import record_night

    baselines = tmp_path / "baselines"
    pipeline.promote(NIGHTS / "unedited-seed1", baselines=baselines)
    # multiply passed every run for 8 nights, then 60 % once: tonight's 60 % raises the alarm
    for gate in (False, True):
        store = tmp_path / f"store-{gate}"
        for i, rate in enumerate([1.0] * 8 + [0.6]):
            record_night(
                store,
                night(f"n{i}", date=f"2026-11-{20 + i}", rates={"multiply": rate}, seed=i),
            )
        outcome = _gated(tmp_path, baselines, store, gate=gate)
        trend = outcome.document.trend
        assert trend is not None and trend.alarmed_tonight == ("multiply",)
        # the night itself is clean against its baseline: only the gate makes it fail
        assert not outcome.document.comparison.regressed
        assert outcome.exit_code == (5 if gate else 0)


def test_fail_on_change_passes_a_night_without_a_new_alarm(tmp_path: Path) -> None:
    from trajguard_testkit.nights import night

    from trajguard.nights import record_night

    baselines, store = tmp_path / "baselines", tmp_path / "store"
    pipeline.promote(NIGHTS / "unedited-seed1", baselines=baselines)
    for i in range(8):
        record_night(
            store, night(f"n{i}", date=f"2026-11-{20 + i}", rates={"multiply": 0.55}, seed=i)
        )
    outcome = _gated(tmp_path, baselines, store, gate=True)
    assert outcome.document.trend is not None and outcome.document.trend.alarmed_tonight == ()
    assert outcome.exit_code == 0
