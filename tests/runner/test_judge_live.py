"""A judged scenario on the embedded model with ``samples: 3``: the judge probed on an empty and
an off-topic answer before the batch, every run judged three times, the report's
judge-consistency figures computed from them, the headline calling the embedded judge
plumbing-grade and naming it if it passed the probe's answers (issues 25 and 35; marker
``live``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from trajguard import pipeline, store
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

pytestmark = pytest.mark.live

AGENT = """
ANSWERS = ["Paris is the capital of France.", "The capital of France is Lyon.",
           "Paris.", "I do not know.", "France's capital city is Paris.", "Berlin."]

def answer(ctx):
    text = ANSWERS[ctx.seed % len(ANSWERS)]
    steps = [{"step_id": 1, "source": "user", "message": ctx.input},
             {"step_id": 2, "source": "agent", "message": text}]
    return {"schema_version": "ATIF-v1.7", "session_id": "s",
            "agent": {"name": "canned", "version": "1"}, "steps": steps}
"""


async def test_a_judged_scenario_on_the_embedded_model(
    local_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "canned_agent.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "canned_agent", raising=False)
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: judged_live\ndefaults: {runs: 8, concurrency: 1}\nscenarios:\n"
        "  - id: capital\n    agent: {kind: callable, function: canned_agent:answer}\n"
        "    input: What is the capital of France?\n    pass:\n"
        "      - judge: {rubric: 'The answer says that Paris is the capital of France.', "
        "temperature: 0.8, max_tokens: 24}\n"  # samples: 3 by default
    )
    runset = tmp_path / "rs"
    await run_batch(load_suite(path), runset, BatchOptions(seed=25))
    runs = store.read_runs(runset)
    (probe,) = store.read_manifest(runset)["judge_probes"]
    assert (probe["model"], probe["embedded"], probe["samples"]) == ("local/smollm2", True, 3)
    assert [p["answer"] for p in probe["probes"]] == ["empty", "off-topic"]
    assert all(p["passed"] is not None or p["error"] for p in probe["probes"])
    records = [json.loads(r)[0] for r in runs["judge_calls"]]
    assert all(r["model"] == "local/smollm2" for r in records)
    judged = [r for r in records if r["error"] is None]
    assert judged, [r["error"] for r in records]  # the embedded judge answered verdicts
    assert all(len(r["samples"]) == 3 for r in judged)
    fresh = [r for r in judged if not r["cached"]]
    assert all(s["prompt_tokens"] > 0 for r in fresh for s in r["samples"])
    outcome = pipeline.compare(runset, runset, report=tmp_path / "report.md")
    comparison = outcome.comparison
    (found,) = [j for j in comparison.judges if j.side == "candidate"]
    assert found.runs == len(judged) and found.samples == 3
    assert 0.0 <= found.pair_disagreement <= 1.0
    assert found.unstable == (found.pair_disagreement_low > 0.2)
    answers = runs.loc[runs["status"] == "ok", "final_output"].nunique()
    if found.verdict_pass_rate in (0.0, 1.0) and answers >= 2:  # a judge that may not judge
        (uniform,) = comparison.uniform_judges  # is named (issue 35)
        assert uniform.answers == answers
    text = (tmp_path / "report.md").read_text()
    assert "## Judge consistency" in text
    headline = text.split("\n## ")[0]
    assert "**Plumbing-grade judge:** judge: " in headline
    probe_passed = any(p["passed"] for p in probe["probes"])
    assert ("**Judge that cannot judge:**" in headline) == probe_passed
    print(
        f"\njudge consistency: runs={found.runs} disagree={found.disagreement:.2f} "
        f"noise_share={found.noise_share} pass_verdicts={found.verdict_pass_rate:.2f} "
        f"unstable={found.unstable} uniform={len(comparison.uniform_judges)} "
        f"harness_errors={(runs['status'] == 'harness_error').sum()} "
        f"passed={int(runs['passed'].fillna(False).sum())}/{len(runs)} judge_texts_sent="
        f"{sum(not r['cached'] for r in records)} probe="
        f"{[(p['answer'], p['verdicts']) for p in probe['probes']]}"
    )
