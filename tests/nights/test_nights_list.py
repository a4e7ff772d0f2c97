"""A suite's nights as the store recorded them, in the order a trend indexes them: the report
each night named, its verdict and its baseline."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from trajguard_testkit.nights import night

from trajguard.nights import record_night, trend, trend_nights


def _store(path: Path) -> Path:
    for i, (day, batch, pinned) in enumerate(
        [
            ("2026-11-01", "base1", True),
            ("2026-11-02", "base1", True),
            ("2026-11-02", "base2", False),  # two nights on one date
            ("2026-11-03", "base2", False),
        ]
    ):
        made = night(f"n{i}", date=day, seed=i, baseline_batch=batch, pinned=pinned)
        summary = {"report": f"reports/{day}/report.md"} if i != 3 else {"verdict": "unchanged"}
        record_night(path, replace(made, comparison=json.dumps(summary), exit_code=i))
    return path


def test_the_nights_come_in_the_trends_order_with_what_each_recorded(tmp_path: Path) -> None:
    store = _store(tmp_path / "store")
    nights = trend_nights(store, suite="demo", newest=10)
    assert [(n.date, n.night_id) for n in nights] == [
        ("2026-11-01", "n0"),
        ("2026-11-02", "n1"),
        ("2026-11-02", "n2"),
        ("2026-11-03", "n3"),
    ]
    assert [n.report for n in nights] == [
        "reports/2026-11-01/report.md",
        "reports/2026-11-02/report.md",
        "reports/2026-11-02/report.md",
        None,  # the comparison named no report
    ]
    assert [n.baseline_batch for n in nights] == ["base1", "base1", "base2", "base2"]
    assert [n.baseline_pinned for n in nights] == [True, True, False, False]
    assert [n.exit_code for n in nights] == [0, 1, 2, 3]
    assert nights[0].runset == "reports/2026-11-01/runs" and nights[0].verdict == "unchanged"
    # the same nights a trend of the store indexes its alarms by
    facts = trend(store)
    assert facts.nights == len(nights)
    keys = {(n.date, n.night_id) for n in nights}
    assert {(p.date, p.night_id) for s in facts.scenarios for p in s.points} == keys


def test_the_newest_nights_only(tmp_path: Path) -> None:
    store = _store(tmp_path / "store")
    newest = trend_nights(store, suite="demo", newest=2)
    assert [n.night_id for n in newest] == ["n2", "n3"]
    assert trend_nights(store, suite="demo", newest=0) == ()
