"""What README.md and docs/tutorial.md show of real runs is what ``python reports/regenerate.py``
cuts from the committed samples (reports/pages.py), so a changed report format updates the
pages or fails here."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))
import pages  # noqa: E402

HINT = "run python reports/regenerate.py (--tutorial for the tutorial's outputs), review, commit"


@pytest.mark.parametrize("page", pages.PAGES)
def test_every_generated_region_is_what_the_script_puts_there(page: str) -> None:
    committed = (REPO / page).read_text(encoding="utf-8")
    names = pages.generated_names(committed)
    assert names, f"{page} shows no generated output"
    made = pages.expected(REPO, page)
    if committed != made:
        diff = "".join(
            list(
                difflib.unified_diff(
                    committed.splitlines(keepends=True),
                    made.splitlines(keepends=True),
                    f"{page} (committed)",
                    f"{page} (what the script makes)",
                )
            )[:40]
        )
        pytest.fail(f"{page} is out of date: {HINT}\n{diff}")


@pytest.mark.parametrize("page", pages.PAGES)
def test_no_generated_region_is_empty(page: str) -> None:
    text = (REPO / page).read_text(encoding="utf-8")
    for name in pages.generated_names(text):
        start = text.index(f"<!-- generated:{name} -->")
        body = text[start : text.index("<!-- /generated -->", start)].splitlines()[1:]
        assert any(line.strip() for line in body), f"{page}: {name} is empty: {HINT}"


def test_the_nightly_excerpt_is_cut_from_the_sample_report() -> None:
    """Every line of the excerpt is a line of the report, or the start of one cut at a clause."""
    report = (REPO / "reports/sample-nightly/report.md").read_text(encoding="utf-8")
    excerpt = pages.report_excerpt(report)
    lines = report.splitlines()
    assert excerpt.startswith("**Verdict: 🔴 regressed**")
    assert "| multiply | 🔴 regressed |" in excerpt
    for line in filter(None, excerpt.splitlines()):
        if line.endswith(" …"):
            assert any(full.startswith(line[:-2]) and full != line for full in lines), line
        else:
            assert line in lines, line
        assert len(line) <= 200, line


def test_the_ab_excerpt_is_cut_from_the_sample_report() -> None:
    report = (REPO / "reports/sample-ab/ab.md").read_text(encoding="utf-8")
    excerpt = pages.ab_excerpt(report)
    assert excerpt.startswith("**Answer: weather\\_edit behaved differently.**")
    assert "| pass rate | Cochran-Mantel-Haenszel |" in excerpt
    for line in filter(None, excerpt.splitlines()):
        assert any(full.startswith(line) for full in report.splitlines()), line


@pytest.mark.parametrize(
    ("cut", "text"),
    [
        (pages.report_excerpt, "# trajguard report: demo\n\nAll good.\n"),
        (pages.report_excerpt, "**Verdict: ⚪ no regression**\n\n| metric | x |\n|---|---|\n"),
        (pages.ab_excerpt, "**Verdict: 🔴 regressed**\n"),
        (pages.output_block, "\n  \n"),
    ],
)
def test_an_excerpt_of_a_changed_format_fails_rather_than_cutting_something_else(
    cut: object, text: str
) -> None:
    with pytest.raises(pages.ExcerptError):
        cut(text)  # type: ignore[operator]


def test_a_region_no_source_knows_fails_with_its_name() -> None:
    page = "x\n<!-- generated:nightly-excerpts -->\nold\n<!-- /generated -->\n"
    with pytest.raises(pages.ExcerptError, match="nightly-excerpts"):
        pages.contents(REPO, pages.generated_names(page))


def test_fill_replaces_only_the_regions() -> None:
    page = "a\n<!-- generated:x -->\nold\n<!-- /generated -->\nb\n"
    assert pages.fill(page, {"x": "new\n"}) == (
        "a\n<!-- generated:x -->\nnew\n<!-- /generated -->\nb\n"
    )


def test_the_readme_shows_the_screenshot_the_script_takes() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "](reports/screenshots/report-html.png)" in readme
    png = REPO / "reports/screenshots/report-html.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
