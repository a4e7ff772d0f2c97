"""The source tool's own headline figure beside trajguard's pass rate (issue 41): equal on the
committed logs where the runs hold nothing that separates them, and, where they differ, the
runs that make them differ counted (errored samples, rewarded timeouts, partial credit, errored
tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.importers import (
    ImportedBatch,
    ImportedCriterion,
    ImportedRun,
    ImportOptions,
    headlines,
    read_logs,
)

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("kind", "log", "name", "value", "passes", "judged"),
    [
        ("inspect", "inspect/qa-a.eval", "Inspect's accuracy (includes)", 0.5, 20, 40),
        ("harbor", "harbor/terse", "Harbor's mean reward", 0.7, 14, 20),
        ("promptfoo", "promptfoo/variant_a.json", "promptfoo's pass rate (successes / tests)",
         0.425, 17, 40),
    ],
)  # fmt: skip
def test_the_tools_figure_and_ours_agree_on_the_committed_logs(
    kind: str, log: str, name: str, value: float, passes: int, judged: int
) -> None:
    (headline,) = headlines(read_logs(kind, [DATA / log], ImportOptions()))
    assert (headline.name, headline.value, headline.passes, headline.judged) == (
        name,
        pytest.approx(value),
        passes,
        judged,
    )
    assert not headline.differ and len(headline.lines()) == 1


def test_errored_promptfoo_tests_are_named_as_the_difference() -> None:
    batch = read_logs("promptfoo", [DATA / "promptfoo" / "provider_error.json"], ImportOptions())
    (headline,) = headlines(batch)
    assert headline.lines() == [
        "promptfoo's pass rate (successes / tests): 0.000; trajguard's pass rate: none (no "
        "judged run)",
        "  they differ: 2 errored test(s): promptfoo counts them as not passed, trajguard does "
        "not judge them (harness errors)",
    ]


def _run(i: int, status: str, value: str, passed: bool) -> ImportedRun:
    held = passed if status == "ok" else False
    criterion = ImportedCriterion(name="s", held=held, value=value, reason="")
    return ImportedRun(
        scenario="q", run_index=i, status=status, passed=passed, criteria=(criterion,)
    )


def test_errored_inspect_samples_and_partial_credit_are_counted() -> None:
    # as Inspect summarised it: 10 samples, 1 errored (left out), 5 C, 1 P, 3 I: 5.5 / 9
    runs = [_run(i, "ok", "C", True) for i in range(5)]
    runs += [_run(5, "ok", "P", False)] + [_run(6 + i, "ok", "I", False) for i in range(3)]
    runs += [_run(9, "agent_error", "", False)]
    batch = ImportedBatch(
        source="inspect",
        suite="q",
        runs=tuple(runs),
        files=("x.eval",),
        provenance={"logs": [{"scores": {"s": {"accuracy": 5.5 / 9}}}]},
    )
    (headline,) = headlines(batch)
    assert (headline.passes, headline.judged) == (5, 10)
    assert headline.reasons == (
        "1 errored sample(s): Inspect leaves them out of accuracy(), trajguard counts each as "
        "a failed run (a crash)",
        "1 run(s) with partial credit: accuracy() counts the credit, trajguard's pass rule "
        "full credit only",
    )


def test_harbor_timeouts_with_a_reward_are_counted() -> None:
    # Harbor's 8/12 against trajguard's 3/12: five timed-out trials carry reward 1
    runs = [_run(i, "ok", "1.0", True) for i in range(3)]
    runs += [_run(3 + i, "timeout", "1.0", False) for i in range(5)]
    runs += [_run(8 + i, "ok", "0.0", False) for i in range(4)]
    batch = ImportedBatch(
        source="harbor",
        suite="q",
        runs=tuple(runs),
        files=("job",),
        provenance={"jobs": [{"reward_mean": 8 / 12}]},
    )
    (headline,) = headlines(batch)
    assert headline.lines() == [
        "Harbor's mean reward: 0.667; trajguard's pass rate: 0.250 (3 of 12 judged runs)",
        "  they differ: 5 trial(s) that timed out or crashed carry a reward: Harbor averages "
        "it, trajguard fails a crash (its status rule)",
    ]


def test_the_import_summary_prints_both_figures(cli, tmp_path: Path) -> None:
    done = cli("import", "harbor", str(DATA / "harbor" / "terse"), "--out", "o", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "Harbor's mean reward: 0.700; trajguard's pass rate: 0.700 (14 of 20 judged runs)"
        in done.stdout
    )


def test_the_report_names_the_logs_and_both_figures(cli, tmp_path: Path) -> None:
    terse, riddle = DATA / "harbor" / "terse", DATA / "harbor" / "riddle"
    report = tmp_path / "r" / "report.md"
    done = cli(
        "compare", str(terse), str(riddle), "--report", str(report), "--no-plots", cwd=tmp_path
    )
    assert done.returncode in (0, 1), done.stderr
    text = report.read_text()
    assert (
        f"**The baseline was imported from harbor logs.** Its logs: {terse}. Harbor's mean "
        "reward: 0.700; trajguard's pass rate: 0.700 (14 of 20 judged runs)." in text
    )
    assert "Harbor's mean reward: 0.450; trajguard's pass rate: 0.450 (9 of 20 judged runs)." in (
        text
    )
