"""A promptfoo eval of several columns (two prompts x two providers, one results file written by
promptfoo 0.121.20 against the embedded model: data/promptfoo/columns.json): each column is a
variant, ``--variant NAME`` imports one column alone, and two columns imported so compare as
two run sets with per-scenario pass rates equal to promptfoo's own. promptfoo's figures are
read from the file."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trajguard.errors import UsageError
from trajguard.importers import ImportOptions, headlines, read_logs

COLUMNS = Path(__file__).parent / "data" / "promptfoo" / "columns.json"
NAMES = ["plain-warm", "terse-warm", "plain-cool", "terse-cool"]


def _results() -> dict[str, Any]:
    results: dict[str, Any] = json.loads(COLUMNS.read_text())["results"]
    return results


def _column_rates(index: int) -> dict[str, tuple[float, int]]:
    """promptfoo's success rate per test case of one column, from its rows."""
    by_test: dict[str, list[bool]] = defaultdict(list)
    for row in _results()["results"]:
        if row["promptIdx"] == index:
            by_test[row["testCase"]["description"]].append(row["success"])
    return {name: (sum(v) / len(v), len(v)) for name, v in by_test.items()}


def test_the_file_has_four_columns_named_by_prompt_and_provider() -> None:
    prompts = _results()["prompts"]
    assert [(p["label"], p["provider"]) for p in prompts] == [
        ("plain", "warm"), ("terse", "warm"), ("plain", "cool"), ("terse", "cool")
    ]  # fmt: skip
    batch = read_logs("promptfoo", [COLUMNS])
    assert sorted({r.variant for r in batch.runs}) == sorted(NAMES)
    for index, name in enumerate(NAMES):
        metrics = prompts[index]["metrics"]
        runs = [r for r in batch.runs if r.variant == name]
        assert len(runs) == metrics["testPassCount"] + metrics["testFailCount"] == 10
        assert sum(1 for r in runs if r.passed) == metrics["testPassCount"]


def test_each_column_has_promptfoos_figure_beside_ours() -> None:
    prompts = _results()["prompts"]
    found = headlines(read_logs("promptfoo", [COLUMNS]))
    assert [h.name for h in found] == [
        f"promptfoo's pass rate of column {name} (testPassCount / tests)" for name in NAMES
    ]
    for headline, prompt in zip(found, prompts, strict=True):
        metrics = prompt["metrics"]
        tests = metrics["testPassCount"] + metrics["testFailCount"] + metrics["testErrorCount"]
        assert headline.value == pytest.approx(metrics["testPassCount"] / tests)
        assert (headline.passes, headline.judged) == (metrics["testPassCount"], tests)
        assert not headline.differ


@pytest.mark.parametrize(("index", "name"), list(enumerate(NAMES)))
def test_variant_imports_one_column_alone(index: int, name: str) -> None:
    batch = read_logs("promptfoo", [COLUMNS], ImportOptions(variant=name))
    assert {r.variant for r in batch.runs} == {name}
    assert sorted((r.scenario, r.run_index) for r in batch.runs) == sorted(
        (scenario, i) for scenario in ("capital", "sum") for i in range(5)
    )
    for run in batch.runs:
        row = _results()["results"][int(run.source_ref.rsplit("[", 1)[1].rstrip("]"))]
        assert row["promptIdx"] == index
        assert run.passed is row["success"]
    (headline,) = headlines(batch)
    assert headline.name == f"promptfoo's pass rate of column {name} (testPassCount / tests)"
    assert headline.value == pytest.approx(
        _results()["prompts"][index]["metrics"]["testPassCount"] / 10
    )
    (column,) = batch.provenance["evals"][0]["columns"]
    assert column["variant"] == name


def test_a_variant_naming_no_column_is_refused_with_the_columns() -> None:
    with pytest.raises(UsageError) as caught:
        read_logs("promptfoo", [COLUMNS], ImportOptions(variant="plain"))
    assert "holds 4 prompt columns, none of them 'plain'" in caught.value.message
    assert "plain-warm, terse-warm, plain-cool, terse-cool" in str(caught.value.hint)


def _pass_rates(report: Path, role: str) -> dict[str, tuple[float, int]]:
    document = json.loads((report.parent / "comparison.json").read_text())
    rates = {}
    for scenario in document["comparison"]["scenarios"]:
        (metric,) = [m for m in scenario["metrics"] if m["metric"] == "pass_rate"]
        rates[scenario["scenario"]] = (metric[role]["mean"], metric[role]["n"])
    return rates


def test_two_columns_compare_as_two_run_sets(cli: Callable[..., Any], tmp_path: Path) -> None:
    for name in ("plain-cool", "terse-warm"):
        done = cli(
            "import", "promptfoo", str(COLUMNS), "--variant", name, "--out", name, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
    report = tmp_path / "r" / "report.md"
    done = cli(
        "compare", "plain-cool", "terse-warm", "--report", str(report), "--no-plots", "--no-html",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    for role, index in (("baseline", 2), ("candidate", 1)):
        expected = _column_rates(index)
        got = _pass_rates(report, role)
        assert got.keys() == expected.keys()
        for scenario, (rate, n) in expected.items():
            assert got[scenario] == (pytest.approx(rate), n), (role, scenario)


def test_compare_of_all_columns_names_the_command_that_splits_them(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    done = cli("import", "promptfoo", str(COLUMNS), "--out", "all", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = cli("compare", "all", "all", "--report", "r/report.md", "--no-plots", cwd=tmp_path)
    assert done.returncode == 2
    assert "--variant NAME" in done.stderr and "trajguard import promptfoo" in done.stderr
