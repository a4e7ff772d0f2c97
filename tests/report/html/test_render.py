"""The page without a browser: its markup, its policy, its data and its off switch."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.html_nights import HOSTILE, compared

from trajguard import pipeline
from trajguard.report import md
from trajguard.report.builders._failed_criteria import failed_labels
from trajguard.report.html import ROW_FIELDS, render_html
from trajguard.report.html._markup import markdown_html
from trajguard.results import read_document

_HOOKS = (lambda level, raw: (f"h{level}", "", ""), lambda alt, src: "")


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compared(tmp_path_factory.mktemp("night"), regressed=True).report.parent


def test_markdown_text_and_code_reach_the_page_as_text_only() -> None:
    markdown = "\n".join(
        [
            f"| a | b |\n|---|---:|\n| {md(HOSTILE)} | `{HOSTILE}` |",
            "",
            f"**bold** {md(HOSTILE)} <sub>small</sub> 🔴 regressed",
            "",
            "```text",
            HOSTILE,
            "```",
        ]
    )
    page = markdown_html(markdown, _HOOKS)
    tags = set(re.findall(r"</?([a-z0-9]+)", page))
    assert tags <= {
        "div",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "code",
        "p",
        "strong",
        "sub",
        "span",
        "pre",
    }
    assert not re.search(r"<[^>]*onerror", page)  # in no tag: only as text
    assert (
        page.count("&lt;script&gt;") == 4
    )  # cell, code span, paragraph, block and "<script" not in page
    assert '<td class="num"><code>' in page  # alignment from the separator row
    assert '<span class="mark mark-regressed"' in page


def test_the_policy_lets_nothing_load_and_only_the_page_script_run(night: Path) -> None:
    page = (night / "report.html").read_text()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    assert "default-src 'none'" in policy.group(1) and "img-src data:" in policy.group(1)
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy.group(1)
    assert not re.search(r"(src|href)=\"(https?:)?//", page)


def _blob(page: str, ident: str) -> object:
    found = re.search(f'id="{ident}">([A-Za-z0-9+/=]+)<', page)
    assert found is not None
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def test_the_explorer_data_is_the_run_sets_rows(night: Path) -> None:
    page = (night / "report.html").read_text()
    data = _blob(page, "run-rows")
    assert isinstance(data, dict) and data["fields"] == list(ROW_FIELDS)
    root = night.parent
    for index, side in enumerate(("baseline", "candidate")):
        stored = [
            r
            for r in pq.read_table(root / side / "runs.parquet").to_pylist()
            if r["scenario"] == "capital"
        ]
        shown = data["scenarios"]["capital"][index]
        field = {name: i for i, name in enumerate(ROW_FIELDS)}
        assert sorted((r[field["run_id"]], r[field["passed"]]) for r in shown) == sorted(
            (r["run_id"], r["passed"]) for r in stored
        )
        by_id = {r[field["run_id"]]: r for r in shown}
        for row in stored:
            assert by_id[row["run_id"]][field["criteria_failed"]] == sorted(failed_labels(row)[0])
            assert by_id[row["run_id"]][field["tool_sequence"]] == row["tool_sequence"]
    names = [
        s.scenario
        for s in read_document((night / "comparison.json").read_bytes()).comparison.scenarios
    ]
    details = _blob(page, f"traj-{names.index('capital')}")
    assert isinstance(details, list) and len(details) == 2
    candidate = sorted(
        pq.read_table(root / "candidate" / "runs.parquet").to_pylist(), key=lambda r: r["run_index"]
    )
    capital = [r for r in candidate if r["scenario"] == "capital"]
    assert [d[1] for d in details[1]] == [r["trajectory"] for r in capital]


def test_a_page_from_the_document_alone_says_its_runs_are_not_in_it(night: Path) -> None:
    document = read_document((night / "comparison.json").read_bytes())
    page = render_html(document)
    assert "rendered from <code>comparison.json</code> alone" in page
    assert 'id="run-rows"' not in page and 'id="forest"' in page


def test_no_html_writes_no_page(tmp_path: Path) -> None:
    done = compared(tmp_path / "a", regressed=False)
    assert done.report.with_name("report.html").exists()
    pipeline.compare(
        tmp_path / "a" / "baseline",
        tmp_path / "a" / "candidate",
        report=tmp_path / "b" / "report.md",
        options=pipeline.ReportOptions(html=False, plots=False),
    )
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["comparison.json", "report.md"]


def test_the_command_line_maps_no_html(tmp_path: Path, cli) -> None:
    compared(tmp_path / "a", regressed=False)
    result = cli(
        "compare",
        "a/baseline",
        "a/candidate",
        "--report",
        "c/report.md",
        "--no-html",
        "--no-plots",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "c" / "report.html").exists() and (tmp_path / "c" / "report.md").exists()
    result = cli(
        "compare",
        "a/baseline",
        "a/candidate",
        "--report",
        "d/report.md",
        "--no-plots",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "d" / "report.html").exists()


def test_report_html_renders_the_page_from_comparison_json_alone(
    night: Path, tmp_path: Path
) -> None:
    again = pipeline.rerender(night / "comparison.json", out=tmp_path, plots=False, html=True)
    page = again.report.with_name("report.html").read_text()
    assert "rendered from <code>comparison.json</code> alone" in page
    assert 'id="forest"' in page and "Verdict: " in page
    untouched = pipeline.rerender(night / "comparison.json", out=tmp_path / "md", plots=False)
    assert not untouched.report.with_name("report.html").exists()  # off unless asked


def test_a_scenario_description_reaches_both_reports_as_text(night: Path) -> None:
    report = (night / "report.md").read_text()
    (line,) = [x for x in report.splitlines() if x.startswith("**Description:**")]
    assert line.startswith("**Description:** Capitals &lt;img src=x onerror=")
    assert "\\x1b\\[31mred" in line and "\x1b" not in report  # escaped, then markdown-escaped
    document = read_document((night / "comparison.json").read_bytes())
    assert document.scenarios["capital"].description.startswith("Capitals <img")
    assert document.scenarios["greeting"].description == ""
    page = (night / "report.html").read_text()
    assert "<strong>Description:</strong> Capitals &lt;img src=x onerror=" in page
