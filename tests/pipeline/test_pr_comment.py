"""What the comment is rendered from: the comparison.json, or, when trajguard stopped before it
wrote one, the exit code; neither is a usage error, a missing file a clear one."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import StoreError, UsageError
from trajguard.pipeline import pr_comment_text, publish_pr_comment

SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "sample-nightly" / "comparison.json"


def test_the_comment_of_a_comparison_json_is_the_committed_sample() -> None:
    assert pr_comment_text(SAMPLE, page_url="report.html") == (
        SAMPLE.with_name("pr-comment.md").read_text()
    )


def test_without_a_comparison_the_exit_code_says_why(tmp_path: Path) -> None:
    missing = tmp_path / "reports" / "comparison.json"
    down = pr_comment_text(missing, exit_code=3, reason="model unreachable")
    assert "**⛔ not comparable**" in down and "> model unreachable" in down
    assert "exit code 2" in pr_comment_text(None, exit_code=2)
    with pytest.raises(UsageError, match=r"no comparison\.json to render a comment from"):
        pr_comment_text(None, exit_code=1)
    with pytest.raises(StoreError, match="cannot read"):
        pr_comment_text(missing)


def test_outside_a_pull_request_the_comment_goes_to_the_summary_only(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    posted = publish_pr_comment("<!-- x -->\nbody", repo="o/r", pr=None, token="t", summary=summary)
    assert posted.action == "summary" and posted.reason == "not a pull request"
    assert summary.read_text() == "<!-- x -->\nbody\n"
    nowhere = publish_pr_comment("b", repo="o/r", pr=None, token=None, summary=None)
    assert nowhere.action == "none"
