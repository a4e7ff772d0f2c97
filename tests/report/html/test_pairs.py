"""The side-by-side view's data (issue 39): each run's step keys, and the exemplar pair aligned
as `trajguard diff` aligns those two runs (an A/B here; the nightly in test_sidebyside.py)."""

from __future__ import annotations

import json
from pathlib import Path

from trajguard_testkit.browser import page_rows
from trajguard_testkit.html_nights import ab_compared

from trajguard.core import align_steps
from trajguard.report.html._pairs import parsed
from trajguard.results import read_document
from trajguard.runs import diff_runs


def test_an_ab_pages_exemplar_pair_is_aligned_as_trajguard_diff_aligns_it(tmp_path: Path) -> None:
    folder = ab_compared(tmp_path)
    data = page_rows(folder / "report.html")
    document = read_document((folder / "comparison.json").read_bytes())
    explanation = document.scenarios["capital"].explanation
    assert explanation is not None and explanation.exemplars is not None
    base, cand = explanation.exemplars.baseline, explanation.exemplars.candidate
    assert base is not None and cand is not None
    runs = tmp_path / "ab-runs"
    diffed = diff_runs(f"{runs}:{base.run_id}", f"{runs}:{cand.run_id}")
    pair = data["exemplars"]["capital"]
    assert pair["steps"] == [[s.op, s.a, s.b] for s in diffed.alignment.steps]
    rows = data["scenarios"]["capital"]
    assert rows[0][pair["a"]][0] == base.run_id and rows[1][pair["b"]][0] == cand.run_id
    assert set(data["exemplars"]) == {
        name
        for name, facts in document.scenarios.items()
        if facts.explanation and facts.explanation.exemplars
    }


def _trajectory(*results: str) -> str:
    steps = [
        {
            "source": "agent",
            "tool_calls": [{"tool_call_id": f"c{i}", "function_name": "f", "arguments": {}}],
            "observation": {"results": [{"source_call_id": f"c{i}", "content": text}]},
        }
        for i, text in enumerate(results)
    ]
    return json.dumps({"steps": steps})


def test_object_addresses_are_masked_as_the_normalisation_masks_them() -> None:
    first = parsed(_trajectory("<f at 0x7f01>", "a"))
    second = parsed(_trajectory("<f at 0x7f99>", "b"))
    assert first is not None and second is not None
    assert [s.op for s in align_steps(first, second).steps] == ["same", "changed"]


def test_what_is_not_a_trajectory_is_not_aligned() -> None:
    assert parsed(None) is None
    assert parsed("[1, 2]") is None
    assert parsed("{not json") is None
    assert parsed("[" * 100_000 + "]" * 100_000) is None  # deeper than the parser's stack
    assert parsed('{"steps": "none"}') == {"steps": "none"}
