"""The pull-request comment: rendered from comparison.json alone, hostile names kept as text,
"not comparable" where infrastructure failed, cost when the document has it, and GitHub's
limit on a comment's length met by dropping whole rows."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from trajguard.errors import UsageError
from trajguard.report import (
    COMMENT_LIMIT,
    comment_marker,
    comment_size,
    render_not_compared,
    render_pr_comment,
)
from trajguard.results import ReportDocument, read_document

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "reports"
HOSTILE = "mul|ti`ply <script>alert(1)</script> [x](javascript:y) **_ --> )"


def _sample(name: str, rename: str | None = None) -> ReportDocument:
    text = (SAMPLES / name / "comparison.json").read_text()
    if rename is not None:
        data = json.loads(text)
        data["plots"] = {}  # a plot's file is named after its scenario
        text = json.dumps(data).replace("multiply", json.dumps(rename)[1:-1])
    return read_document(text.encode(), file=Path("comparison.json"))


def _table_rows(comment: str) -> list[str]:
    return [line for line in comment.splitlines() if line.startswith("| ")]


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


@pytest.mark.parametrize("sample", ["sample-nightly", "sample-ab"])
def test_the_committed_comment_is_what_the_cli_prints(sample: str, cli: Any) -> None:
    source = SAMPLES / sample / "comparison.json"
    args = ("report", str(source), "--format", "pr-comment", "--page-url", "report.html")
    result = cli(*args, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (SAMPLES / sample / "pr-comment.md").read_text()


def test_the_comment_format_refuses_the_report_files_options(cli: Any, tmp_path: Path) -> None:
    source = SAMPLES / "sample-ab" / "comparison.json"
    result = cli("report", str(source), "--format", "pr-comment", "--html", cwd=tmp_path)
    assert result.returncode == 2 and "not the comment" in result.stderr
    written = cli("report", str(source), "--format", "pr-comment", "--out", "c.md", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "c.md").read_text().startswith(comment_marker())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.md"], "nothing else written"


def test_the_comment_answers_first_and_lists_what_failed() -> None:
    ab = render_pr_comment(_sample("sample-ab"), page_url="https://ci.example/r/report.html")
    lines = ab.splitlines()
    assert lines[0] == comment_marker()
    assert lines[3].startswith("**Answer: weather\\_edit behaved differently** (against base).")
    assert "These runs could detect an average pass-rate difference of 22 points" in ab
    rows = _table_rows(ab)
    assert rows[0].startswith("| scenario | verdict | pass rate (95% CI) |")
    assert rows[1].startswith("| multiply | 🔴 regressed | 50% → 10%: -40 pts [-61, -12] pts |")
    assert (
        "[candidate (weather\\_edit) run multiply/weather\\_edit/1](https://ci.example/r/"
        "report.html#run=multiply%2Fweather_edit%2F1&batch=sample-ab&side=candidate)"
    ) in ab
    nightly = render_pr_comment(_sample("sample-nightly"))
    assert "**Verdict: 🔴 regressed** — a gating regression failed the night (exit code 1)." in (
        nightly
    )
    assert "**Blind in 4 of 4 scenarios**" in nightly
    assert "](" not in nightly, "no page: no links"
    assert "the full report (report.md, report.html)" in nightly


def test_a_hostile_scenario_name_stays_text_in_the_table_the_bullets_and_the_links() -> None:
    comment = render_pr_comment(_sample("sample-ab", rename=HOSTILE), page_url="report.html")
    assert "<script>" not in comment
    assert "&lt;script&gt;" in comment
    assert comment.count("-->") == 1, "only the marker closes an HTML comment"
    assert "`" not in comment.replace("\\`", "").replace("`--require-power`", "")
    rows = _table_rows(comment)
    assert len({_unescaped_pipes(row) for row in rows}) == 1, "every row has the header's cells"
    links = re.findall(r"(?<!\\)\]\(([^)]*)\)", comment)  # an escaped \] opens no link
    assert links and all(link.startswith("report.html") for link in links)
    hostile = [link for link in links if "alert" in link]
    assert hostile and all(re.fullmatch(r"[A-Za-z0-9_.~%=&#/-]+", link) for link in hostile)


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "https://x.io/a b", "https://x.io/(x)", "data:text/html,x"]
)
def test_a_page_url_that_could_break_out_of_a_link_is_refused(url: str) -> None:
    with pytest.raises(UsageError, match="not a link a comment can carry"):
        render_pr_comment(_sample("sample-nightly"), page_url=url)


def test_a_comment_key_must_be_a_plain_word() -> None:
    assert comment_marker("demo-nightly") == "<!-- trajguard:pr-comment demo-nightly -->"
    with pytest.raises(UsageError, match="comment key"):
        comment_marker("x --> <b>")


def _wiped(document: ReportDocument, names: set[str]) -> ReportDocument:
    """``document`` with every candidate run of ``names`` a harness error."""
    scenarios = tuple(
        replace(s, harness_excluded_candidate=s.runs_candidate) if s.scenario in names else s
        for s in document.comparison.scenarios
    )
    return replace(document, comparison=replace(document.comparison, scenarios=scenarios))


def test_a_scenario_whose_runs_all_failed_on_infrastructure_is_not_comparable() -> None:
    document = _wiped(_sample("sample-nightly"), {"capital"})
    comment = render_pr_comment(document)
    rows = _table_rows(comment)
    assert rows[1].startswith("| capital | ⛔ not comparable |"), "not comparable rows first"
    assert "- **⛔ not comparable:** capital — every run of a side was an infrastructure" in comment
    assert "**Verdict: 🔴 regressed**" in comment, "the other scenarios still answer"


def test_a_comparison_that_infrastructure_wiped_out_gives_no_answer() -> None:
    document = _sample("sample-ab")
    names = {s.scenario for s in document.comparison.scenarios}
    comment = render_pr_comment(_wiped(document, names))
    assert "**⛔ not comparable** — infrastructure failed" in comment
    assert "Answer:" not in comment and "Verdict:" not in comment


def test_trajguard_stopped_by_infrastructure_says_not_comparable() -> None:
    down = render_not_compared(exit_code=3, reason="model unreachable at http://127.0.0.1:9")
    assert down.splitlines()[0] == comment_marker()
    assert "**⛔ not comparable** — infrastructure failed before any comparison" in down
    bad = render_not_compared(exit_code=2, reason="suite.yaml:3: unknown key <b>")
    assert "not comparable" not in bad and "exit code 2" in bad and "&lt;b&gt;" in bad


def test_cost_is_a_column_when_the_comparison_has_it_and_absent_otherwise() -> None:
    document = _sample("sample-nightly")
    assert "cost" not in render_pr_comment(document)
    scenarios = tuple(
        replace(s, metrics=(*s.metrics, replace(s.metric("prompt_tokens"), metric="cost_usd")))
        for s in document.comparison.scenarios
    )
    costed = replace(document, comparison=replace(document.comparison, scenarios=scenarios))
    comment = render_pr_comment(costed)
    rows = _table_rows(comment)
    assert rows[0].endswith("| cost\\_usd (95% CI) |")
    capital = next(r for r in rows if r.startswith("| capital |"))
    # a metric this trajguard does not know: its means, effect and interval, plainly
    assert capital.endswith("| 613 → 595 (effect 0.973 [0.938, 1.01]) |"), capital
    assert len({_unescaped_pipes(row) for row in rows}) == 1


def test_the_cost_metric_is_a_column_only_when_some_run_was_priced() -> None:
    document = _sample("sample-nightly")
    assert all(s.metric("cost").baseline.n == 0 for s in document.comparison.scenarios)
    priced = tuple(
        replace(
            s,
            metrics=tuple(
                replace(s.metric("prompt_tokens"), metric="cost") if m.metric == "cost" else m
                for m in s.metrics
            ),
        )
        for s in document.comparison.scenarios
    )
    comment = render_pr_comment(
        replace(document, comparison=replace(document.comparison, scenarios=priced))
    )
    rows = _table_rows(comment)
    assert rows[0].endswith("| cost (95% CI) |")
    assert all(not row.endswith("| — → — (—) |") for row in rows[2:])


def _many(document: ReportDocument, copies: int) -> ReportDocument:
    """``document`` with each scenario repeated ``copies`` times under new names."""
    results, facts = [], {}
    for i in range(copies):
        for s in document.comparison.scenarios:
            name = f"{s.scenario}-{i:04d}"
            results.append(replace(s, scenario=name))
            facts[name] = document.scenarios[s.scenario]
    comparison = replace(document.comparison, scenarios=tuple(results), blind=())
    return replace(document, comparison=comparison, scenarios=facts, plots={})


def test_a_comment_over_githubs_limit_drops_whole_rows_and_links_the_full_page() -> None:
    document = _many(_sample("sample-ab"), 400)  # 1,600 scenarios
    full = render_pr_comment(document, page_url="https://ci.example/report.html", limit=10**8)
    assert comment_size(full) > COMMENT_LIMIT
    comment = render_pr_comment(document, page_url="https://ci.example/report.html")
    assert comment_size(comment) <= COMMENT_LIMIT
    assert comment.startswith(comment_marker() + "\n")
    note = re.search(r"_Left out to fit GitHub's comment limit: ([\d,]+) scenario rows?", comment)
    assert note is not None
    assert "[the full report](https://ci.example/report.html) has them all._" in comment
    rows = _table_rows(comment)
    assert all(_unescaped_pipes(r) == _unescaped_pipes(rows[0]) for r in rows)
    kept = rows[1:]
    assert len(kept) + int(note.group(1).replace(",", "")) == 1600
    assert all("regressed" in r for r in kept[:400]), "the regressions are kept first"
    bullets = [line for line in comment.splitlines() if line.startswith("- **")]
    assert all(line.endswith(")") for line in bullets), "no link cut in half"


def test_the_limit_is_met_exactly_at_every_size() -> None:
    document = _many(_sample("sample-nightly"), 5)
    whole = render_pr_comment(document, limit=10**8)
    assert render_pr_comment(document, limit=comment_size(whole)) == whole
    for limit in range(comment_size(whole) - 1, 2500, -997):
        shorter = render_pr_comment(document, limit=limit)
        assert comment_size(shorter) <= limit
        assert "Left out to fit GitHub's comment limit" in shorter
    with pytest.raises(ValueError, match="cannot hold the answer"):
        render_pr_comment(document, limit=200)
