"""Two runs side by side in report.html (issue 39), in a real Chromium on a regressed night: the
exemplar pair aligned and its first divergence marked as `trajguard diff` aligns and marks it;
any two runs aligned by the page's script exactly as by Python; arguments and results diffed;
hostile text shown as text; usable at phone width (A and B stacked)."""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.browser import open_report, page_rows
from trajguard_testkit.html_nights import HOSTILE, compared, night_rows, write_night

from trajguard import pipeline
from trajguard.core import COSTS, align_codes, align_steps
from trajguard.report.html._pairs import parsed
from trajguard.results import read_document
from trajguard.runs import diff_runs

SCRIPT_END = '</script><img src=x onerror="window.__pwned=1">'


def _other_results(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The hostile scenario's candidate runs call their tool with other hostile arguments and
    get other hostile text back (so its pairs are changed and their difference is drawn)."""
    out = []
    for row in rows:
        if row["scenario"].startswith("x<"):
            trajectory = json.loads(row["trajectory"])
            for step in trajectory["steps"]:
                for call in step.get("tool_calls") or ():
                    call["arguments"] = {"query": "other " + HOSTILE, "page": 2}
                for result in (step.get("observation") or {}).get("results") or ():
                    result["content"] = "other " + SCRIPT_END + HOSTILE
            row = row | {"trajectory": json.dumps(trajectory)}
        out.append(row)
    return out


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sbs")
    outcome = compared(root, regressed=True)
    assert outcome.regressed
    return root


@pytest.fixture(scope="module")
def hostile_night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sbs-hostile")
    baseline = write_night(root, "baseline", night_rows(regressed=False), "base1")
    candidate = write_night(root, "candidate", _other_results(night_rows(regressed=True)), "c1")
    pipeline.compare(baseline, candidate, report=root / "report" / "report.md")
    return root


def _python_alignment(root: Path, scenario: str) -> tuple[Any, Any, Any]:
    """The exemplar pair of ``scenario`` and `trajguard diff`'s alignment of it."""
    document = read_document((root / "report" / "comparison.json").read_bytes())
    explanation = document.scenarios[scenario].explanation
    assert explanation is not None and explanation.exemplars is not None
    base, cand = explanation.exemplars.baseline, explanation.exemplars.candidate
    assert base is not None and cand is not None
    diffed = diff_runs(f"{root / 'baseline'}:{base.run_id}", f"{root / 'candidate'}:{cand.run_id}")
    return base, cand, diffed


def _drawn(page: Any) -> list[tuple[str, int | None, int | None]]:
    rows = page.locator("#x-sbs-steps > .sbs-row")
    out = []
    for row in rows.all():
        a, b = row.get_attribute("data-a"), row.get_attribute("data-b")
        out.append((row.get_attribute("data-op"), int(a) if a else None, int(b) if b else None))
    return out


def test_the_exemplar_pair_is_marked_where_trajguard_diff_marks_it(
    browser: Any, night: Path, tmp_path: Path
) -> None:
    base, cand, diffed = _python_alignment(night, "capital")
    assert base.passed is True and cand.passed is False  # the regressed rule's contrast
    opened = open_report(browser, night / "report" / "report.html")
    page = opened.page
    page.select_option("#x-scenario", "capital")
    page.click("#x-exemplar")
    page.wait_for_selector("#x-sbs-steps")
    expected = [(s.op, s.a, s.b) for s in diffed.alignment.steps]
    assert _drawn(page) == expected
    first = diffed.alignment.steps[diffed.alignment.first_divergence or 0]
    assert (first.op, first.a, first.b) == ("b", None, 2)  # B's get_weather call
    marked = page.locator("#x-first")
    assert marked.count() == 1 and page.locator(".sbs-row.first").count() == 1
    assert (marked.get_attribute("data-op"), marked.get_attribute("data-b")) == ("b", "2")
    assert "first divergence" in marked.inner_text()
    assert "tool call: get_weather" in marked.locator(".sbs-b").inner_text()
    assert "took no such step" in marked.locator(".sbs-a").inner_text()
    # `trajguard diff` marks the same step: its first marked line is B's get_weather call
    flagged = [line for line in diffed.aligned if "◀ first divergence" in line]
    assert len(flagged) == 1 and flagged[0].startswith("+ agent: get_weather(")
    # the final answers differ: the changed pair marks what differs in each
    last = page.locator("#x-sbs-steps > .sbs-row").last
    assert last.get_attribute("data-op") == "changed"
    assert last.locator(".sbs-a mark").inner_text() == "The capital is Canberra"
    assert last.locator(".sbs-b mark").inner_text() == "It is Sydney"
    assert opened.errors == [] and opened.requests == []
    page.screenshot(path=tmp_path / "sbs-1280.png", full_page=True)


def _blob(page_file: Path, index: int) -> Any:
    found = re.search(rf'id="traj-{index}">([A-Za-z0-9+/=]+)<', page_file.read_text())
    assert found is not None
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


_WORDS = ["ok", "Paris", "é✓", "<f at 0x7f01>", "<f at 0x7f99>", "", "a\nb", "\x1b[2J"]


def _random_step(rng: random.Random) -> dict[str, Any]:
    """A step from a small vocabulary, so random runs share steps, near-misses and misses."""
    source = rng.choice(["user", "agent", "agent", "system"])
    step: dict[str, Any] = {"source": source, "message": rng.choice(_WORDS)}
    if source == "agent" and rng.random() < 0.7:
        calls, results = [], []
        for k in range(rng.choice([1, 1, 2])):
            arguments = {"q": rng.choice(_WORDS), "n": rng.choice([1, 2, [1, {"b": 1, "a": 2}]])}
            if rng.random() < 0.5:  # the same arguments in another key order
                arguments = dict(reversed(list(arguments.items())))
            calls.append(
                {
                    "tool_call_id": f"c{k}",
                    "function_name": rng.choice(["f", "g"]),
                    "arguments": arguments,
                }
            )
            result: dict[str, Any] = {"source_call_id": f"c{k}", "content": rng.choice(_WORDS)}
            if rng.random() < 0.2:
                result["extra"] = {"error": "timeout"}
            results.append(result)
        if rng.random() < 0.1:
            results.append({"source_call_id": "elsewhere", "content": "loose"})
        step |= {"tool_calls": calls, "observation": {"results": results}}
    return step


def _random_run(rng: random.Random) -> dict[str, Any]:
    return {"steps": [_random_step(rng) for _ in range(rng.randint(0, 7))]}


def _random_codes(rng: random.Random) -> list[int]:
    out = []
    for _ in range(rng.randint(0, 9)):
        kind = rng.randint(0, 2)
        calls = kind * 10 + rng.randint(0, 1)
        out += [kind, calls, calls * 10 + rng.randint(0, 2)]
    return out


def _triples(flat: list[int]) -> list[tuple[int, int, int]]:
    return [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]


def test_any_two_runs_align_in_the_page_exactly_as_in_python(browser: Any, night: Path) -> None:
    """The page's port (step keys and alignment) against trajguard.core's: every ordered pair
    of a regressed scenario's 24 runs, 400 pairs of random runs (shared, near and missed steps,
    arguments in another key order, object addresses, control characters), and the dynamic
    programme on random keys with the real limit and with a small one (its fallback)."""
    page_file = night / "report" / "report.html"
    assert page_rows(page_file)["alignment"] == COSTS
    scenario = list(page_rows(page_file)["scenarios"]).index("capital")
    stored = [json.loads(detail[1]) for side in _blob(page_file, scenario) for detail in side]
    rng = random.Random(39)
    runs = [[a, b] for a in stored for b in stored]
    runs += [[_random_run(rng), _random_run(rng)] for _ in range(400)]
    keys = [[_random_codes(rng), _random_codes(rng)] for _ in range(200)]
    limits = [COSTS] * 150 + [dict(COSTS, cells=6)] * 50
    page = open_report(browser, page_file).page
    drawn = page.evaluate(
        """([runs, keys, limits, costs]) => [
          runs.map(p => trajguardPairs.alignTrajectories(p[0], p[1], costs)),
          keys.map((p, k) => trajguardPairs.align(p[0], p[1], limits[k]))]""",
        [runs, keys, limits, COSTS],
    )
    # trajguard diff aligns normalised runs, whose object addresses are masked
    expected = [
        [
            [s.op, s.a, s.b]
            for s in align_steps(*(parsed(json.dumps(r)) or {} for r in (a, b))).steps
        ]
        for a, b in runs
    ]
    assert drawn[0] == expected
    assert {op for steps in expected for op, _, _ in steps} == {"same", "changed", "a", "b"}
    assert len({json.dumps(steps) for steps in expected}) > 100  # not one alignment 400 times
    expected_keys = [
        [[s.op, s.a, s.b] for s in align_codes(_triples(a), _triples(b), limit=c["cells"])]
        for (a, b), c in zip(keys, limits, strict=True)
    ]
    assert drawn[1] == expected_keys


def test_two_runs_picked_in_the_table_show_side_by_side(browser: Any, night: Path) -> None:
    page = open_report(browser, night / "report" / "report.html").page
    page.select_option("#x-scenario", "capital")
    page.select_option("#x-side", "1")
    page.select_option("#x-passed", "false")
    failing = page.locator("#runs tbody tr").first
    failing.locator("button.pick-b").click()
    page.select_option("#x-side", "0")
    page.select_option("#x-passed", "true")
    page.locator("#runs tbody tr").first.locator("button.pick-a").click()
    page.wait_for_selector("#x-sbs-steps")
    assert [op for op, _, _ in _drawn(page)] == ["same", "same", "b", "changed"]
    assert page.locator("#x-first").get_attribute("data-b") == "2"
    picked = page.locator(".sbs-picked").inner_text()
    assert failing.get_attribute("data-run-id") in picked


def test_hostile_text_in_a_changed_pair_is_shown_as_text(browser: Any, hostile_night: Path) -> None:
    opened = open_report(browser, hostile_night / "report" / "report.html")
    page = opened.page
    page.select_option("#x-scenario", f"x{HOSTILE}")
    page.select_option("#x-side", "0")
    page.locator("#runs tbody tr").first.locator("button.pick-a").click()
    page.select_option("#x-side", "1")
    page.locator("#runs tbody tr").first.locator("button.pick-b").click()
    page.wait_for_selector("#x-sbs-steps")
    view = page.locator("#x-sbs").inner_text()
    assert [op for op, _, _ in _drawn(page)] == ["same", "changed", "same"]
    assert "result " + HOSTILE in view and "other " + SCRIPT_END + HOSTILE in view
    assert "\\x1b[31mred" in view and "\x1b" not in view
    changed = page.locator("#x-sbs-steps > .sbs-row.op-changed")
    # the arguments diffed key by key: the query differs on both sides, the page only in B
    assert changed.locator(".sbs-a .arg.differs").all_inner_texts() == [
        "query: " + HOSTILE + "\\x1b[31mred\\x1b[0m"
    ]
    b_args = changed.locator(".sbs-b .arg.differs").all_inner_texts()
    assert b_args == ["page: 2", "query: other " + HOSTILE]
    assert changed.locator(".sbs-b .arg.differs mark").inner_text() == "other " + HOSTILE
    result = changed.locator(".sbs-b pre.content mark").inner_text()
    assert result == "other " + SCRIPT_END  # their common end (HOSTILE) left unmarked
    assert changed.locator(".sbs-a pre.content mark").inner_text() == "result "
    assert changed.locator(".sbs-a pre.content").inner_text() == "result " + HOSTILE
    assert page.locator("#x-sbs img").count() == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('script:not([type])').length") == 1
    assert opened.errors == [] and opened.requests == []


def test_at_phone_width_the_sides_stack_and_nothing_scrolls_sideways(
    browser: Any, night: Path, tmp_path: Path
) -> None:
    boxes = {}
    for width in (1280, 390):
        opened = open_report(browser, night / "report" / "report.html", width=width)
        page = opened.page
        page.select_option("#x-scenario", "capital")
        page.click("#x-exemplar")
        page.wait_for_selector("#x-sbs-steps")
        row = page.locator("#x-sbs-steps > .sbs-row.op-changed").last
        boxes[width] = (
            row.locator(".sbs-a").bounding_box(),
            row.locator(".sbs-b").bounding_box(),
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert opened.errors == []
        page.screenshot(path=tmp_path / f"sbs-{width}.png", full_page=True)
    a, b = boxes[1280]
    assert abs(a["y"] - b["y"]) < 1 and b["x"] > a["x"] + a["width"] - 1  # beside each other
    a, b = boxes[390]
    assert b["y"] >= a["y"] + a["height"] - 1 and abs(a["x"] - b["x"]) < 1  # stacked
    assert a["width"] > 300  # each side the screen's width, not a squeezed half
