"""The report document: the reports rendered from it are those the renderers wrote when they read
the run sets (golden files made by a958834's renderers from the same inputs), the renderers read
nothing else, and it holds plain data only.

The golden files under ``golden/`` were rendered by a958834 (the last commit whose renderers read
the run sets) from ``trajguard_testkit.reports``. A deliberate change of a report's words changes
them: rewrite them with
``PYTHONPATH=src:tests/support python tests/report/builders/test_document.py`` and review the diff.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from trajguard_testkit.close_numbers import assert_same_output
from trajguard_testkit.reports import ReportCase, report_cases

from trajguard.report import (
    build_ab_document,
    build_document,
    junit_xml,
    render_ab_report,
    render_markdown,
    render_report,
    write_plots,
)
from trajguard.results import ReportDocument, ReportKind, ScenarioFacts

GOLDEN = Path(__file__).parent / "golden"
CASES = {case.name: case for case in report_cases()}


def document_of(case: ReportCase) -> ReportDocument:
    if case.ab is not None:
        assert case.runs is not None
        return build_ab_document(
            case.ab,
            runs=case.runs,
            plots=case.scenarios,
            command=case.command,
            design=case.design,
        )
    return build_document(
        case.comparison,
        kind=ReportKind.NIGHTLY,
        baseline=case.baseline,
        candidate=case.candidate,
        plots=case.scenarios,
        command=case.command,
        design=case.design,
        history=case.history,
    )


def rendered(document: ReportDocument, name: str) -> dict[str, str]:
    """The golden file name → the text rendered from the document."""
    texts = {f"{name}.md": render_markdown(document)}
    if document.kind is not ReportKind.AB:
        texts[f"{name}.junit.xml"] = junit_xml(document)
    return texts


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_document_renders_the_reports_the_run_sets_rendered(name: str) -> None:
    texts = rendered(document_of(CASES[name]), name)
    for file, text in texts.items():
        assert_same_output(text, (GOLDEN / file).read_text(encoding="utf-8"), what=file)


def test_the_cases_reach_every_section() -> None:
    history = (GOLDEN / "history.md").read_text(encoding="utf-8")
    for part in (
        "## Baseline history",
        "**Drifting baseline: a**",
        "The candidate changed the definition of b",
        "the batches ran on different machines (EPYC against Xeon",
        "## Sequential design",
        "- b/base: h → edited",
        "| models | local/m1, local/m2 | — |",
        "![distributions of a](plots/a.png)",
        "trajguard nightly suites/demo.yaml",
    ):
        assert part in history, part
    resilience = (GOLDEN / "resilience.md").read_text(encoding="utf-8")
    assert "| baseline (base) | error | 10 |" in resilience
    assert "| candidate (flaky) | (none met) | 10 |" in resilience
    assert "**Answer: terse" in (GOLDEN / "ab.md").read_text(encoding="utf-8")


@contextmanager
def calls_traced() -> Iterator[set[str]]:
    """The source files of every Python function called inside the block (this thread)."""
    files: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            files.add(frame.f_code.co_filename.replace("\\", "/"))

    sys.setprofile(profile)
    try:
        yield files
    finally:
        sys.setprofile(None)


RUN_TABLE_CODE = (
    "/pandas/",
    "/pyarrow/",
    "/trajguard/store/",
    "/trajguard/outcome.py",
    "/trajguard/report/builders/_arm_summary.py",
    "/trajguard/report/builders/_conversation_facts.py",
    "/trajguard/report/builders/_cost_facts.py",
    "/trajguard/report/builders/_document.py",
    "/trajguard/report/builders/_explanation_facts.py",
    "/trajguard/report/builders/_failed_criteria.py",
    "/trajguard/report/builders/_resilience_facts.py",
    "/trajguard/report/builders/_tool_digest.py",
)


def _run_table_code(files: set[str]) -> list[str]:
    return sorted(f for f in files if any(part in f for part in RUN_TABLE_CODE))


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_renderers_run_no_code_that_reads_run_tables(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    with calls_traced() as building:
        document = document_of(case)
    assert _run_table_code(building), "the trace sees the builder read the run tables"
    renders: list[Callable[[], object]] = [
        lambda: render_markdown(document),
        lambda: write_plots(tmp_path, document),
    ]
    if document.kind is not ReportKind.AB:
        renders.append(lambda: junit_xml(document))
    for render in renders:
        with calls_traced() as rendering:
            render()
        assert any("/trajguard/report/" in f for f in rendering), "the trace saw the renderer"
        assert _run_table_code(rendering) == []
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == sorted(
        Path(path).name for path in document.plots.values()
    )


def _plain(value: Any, where: str) -> Iterator[str]:
    """Where ``value`` holds something a JSON codec could not write as it is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _plain(getattr(value, f.name), f"{where}.{f.name}")
    elif isinstance(value, StrEnum) or value is None or type(value) in (str, bool, int):
        return
    elif type(value) is float:
        if not math.isfinite(value):
            yield f"{where}: {value}"
    elif type(value) is tuple:
        for i, item in enumerate(value):
            yield from _plain(item, f"{where}[{i}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if type(key) is not str:
                yield f"{where}: key {key!r} of {type(key).__name__}"
            yield from _plain(item, f"{where}[{key!r}]")
    else:
        yield f"{where}: {type(value).__module__}.{type(value).__name__}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_document_holds_plain_data(name: str) -> None:
    document = document_of(CASES[name])
    # The comparison is trajguard.comparison's, whose types the codec maps; the rest is built here.
    built = [f.name for f in dataclasses.fields(document) if f.name != "comparison"]
    assert [p for name in built for p in _plain(getattr(document, name), name)] == []
    assert list(_plain(("x", 1.5, {"k": (1,)}), "probe")) == []
    assert list(_plain((float("nan"), {1: 0}, [1], np.float64(1)), "probe")) == [
        "probe[0]: nan",
        "probe[1]: key 1 of int",
        "probe[2]: builtins.list",
        "probe[3]: numpy.float64",
    ]


def test_the_document_refuses_contents_that_do_not_fit_its_comparison() -> None:
    document = document_of(CASES["history"])
    with pytest.raises(ValueError, match=r"lacks the facts of scenario\(s\) \['b'\]"):
        dataclasses.replace(document, scenarios={"a": ScenarioFacts()})
    with pytest.raises(ValueError, match="did not compare"):
        dataclasses.replace(document, plots={"zz": "plots/zz.png"})
    with pytest.raises(ValueError, match=r"are not plots/<name>\.png"):
        dataclasses.replace(document, plots={"a": "plots/../../a.png"})
    with pytest.raises(ValueError, match="exactly when its kind is 'ab'"):
        dataclasses.replace(document, kind=ReportKind.AB)
    with pytest.raises(ValueError, match="no A/B answer"):
        render_ab_report(document)


def test_the_ab_document_plays_variant_a_as_the_baseline() -> None:
    document = document_of(CASES["ab"])
    assert document.ab is not None and document.kind is ReportKind.AB
    assert (document.baseline.path, document.candidate.path) == (
        "reports/ab/runs (variant base)",
        "reports/ab/runs (variant terse)",
    )
    assert (document.baseline.label, document.candidate.label) == (
        "baseline (base)",
        "candidate (terse)",
    )
    tools = document.scenarios["tolerant"].candidate.tools
    assert dict(tools.calls) == {"calc": 1.0, "search": 1.0}
    assert tools.top is not None and tools.top.sequence == ("calc", "search")
    plot = document.scenarios["tolerant"].baseline.plot
    assert (plot.pass_rate, plot.judged, plot.steps) == (0.75, 20, (3.0,) * 20)
    # The A/B document's per-scenario part is the comparison report without its title.
    assert render_markdown(document).endswith(render_report(document).split("\n", 1)[1])


def _write_golden() -> None:  # pragma: no cover - run by hand after a deliberate change
    GOLDEN.mkdir(exist_ok=True)
    for name, case in CASES.items():
        for file, text in rendered(document_of(case), name).items():
            (GOLDEN / file).write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    _write_golden()
