"""The forest plot's panels cannot overlap: every mark of a panel lies inside its own extent,
even an effect at an end of its scale (a failing-paths fall of 100 points)."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from trajguard.comparison import CompareConfig, compare_runsets
from trajguard.report.html._forest import forest_svg

SVG = "{http://www.w3.org/2000/svg}"


def _row(scenario: str, i: int, *, passed: bool, tools: list[str]) -> dict[str, Any]:
    return {
        "run_id": f"{scenario}/base/{i}",
        "scenario": scenario,
        "variant": "base",
        "run_index": i,
        "status": "ok",
        "passed": passed,
        "crashed": False,
        "step_count": 3,
        "tool_sequence": tools,
        "tool_counts": {t: tools.count(t) for t in tools},
        "tool_call_count": len(tools),
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "duration_s": 1.0,
    }


def _comparison() -> Any:
    # every baseline run fails along "search"; every candidate run passes along "lookup":
    # failing paths fall by 100 points, the tool mix moves all the way
    baseline = pd.DataFrame(
        [_row(s, i, passed=False, tools=["search"]) for s in ("a", "b") for i in range(12)]
    )
    candidate = pd.DataFrame(
        [_row(s, i, passed=True, tools=["lookup"]) for s in ("a", "b") for i in range(12)]
    )
    # every metric gating: the narrowest panels, where a mark at an end meets the next panel
    gating = {"pass_rate", "crash_rate", "tool_usage", "failing_paths", "step_count", "latency"}
    return compare_runsets(baseline, candidate, config=CompareConfig(gating=frozenset(gating)))


def _x_values(element: ET.Element) -> list[float]:
    tag = element.tag.removeprefix(SVG)
    if tag == "circle":
        return [float(element.attrib["cx"])]
    if tag == "line":
        return [float(element.attrib["x1"]), float(element.attrib["x2"])]
    if tag == "path":  # a diamond: M cx y L cx+6 y L cx y+6 L cx-6 y Z
        cx = float(element.attrib["d"][1:].split()[0])
        return [cx - 6, cx + 6]
    if tag == "rect" and "width" in element.attrib:
        x = float(element.attrib["x"])
        return [x, x + float(element.attrib["width"])]
    return []


def test_every_mark_lies_inside_its_own_panel() -> None:
    comparison = _comparison()
    paths = comparison.scenario("a").metric("failing_paths")
    assert paths.estimate is not None and paths.estimate <= -0.99, "the case of the issue"
    svg = ET.fromstring(forest_svg(comparison, {"a": "a", "b": "b"}))
    panels = svg.findall(f"{SVG}g[@class='panel']")
    names = [p.attrib["data-metric"] for p in panels]
    assert "failing_paths" in names and "tool_usage" in names
    extents = sorted((float(p.attrib["data-x0"]), float(p.attrib["data-x1"])) for p in panels)
    for (_, end), (start, _) in itertools.pairwise(extents):
        assert end < start, f"panels overlap: {extents}"
    for panel in panels:
        x0, x1 = float(panel.attrib["data-x0"]), float(panel.attrib["data-x1"])
        clip = panel.find(f"{SVG}clipPath/{SVG}rect")
        assert clip is not None and float(clip.attrib["x"]) == x0
        marks = [e for e in panel.iter() if e.tag.removeprefix(SVG) != "clipPath"]
        for mark in marks:
            if mark in clip.iter() or mark is panel:
                continue
            for value in _x_values(mark):
                assert x0 <= value <= x1, (panel.attrib["data-metric"], mark.attrib, x0, x1)
        for label in panel.findall(f"{SVG}text"):  # a tick label up to "-100": 24 px at most
            x, anchor = float(label.attrib["x"]), label.attrib.get("text-anchor", "start")
            left, right = {"start": (x, x + 24), "end": (x - 24, x), "middle": (x - 12, x + 12)}[
                anchor
            ]
            if label.text and len(label.text) <= 4:
                assert x0 <= left and right <= x1, (label.text, anchor, x, x0, x1)
        effects = panel.findall(f"{SVG}g[@class='effect']")
        assert effects, "each panel draws its scenarios' effects"
