"""Frozen-mode examples: the reference agent replayed from cassettes, checked against goldens.

The cassettes (``cassettes/test_frozen_agent/``) and goldens (``golden/test_frozen_agent/``) were
recorded once from the embedded SmolLM2 model, not written by hand; CI replays them with no model
and no network. If an agent change is intended, re-record and review both diffs::

    pytest tests/examples/test_frozen_agent.py --llm-record-mode=all --golden-update
"""

from __future__ import annotations

import pytest

from trajguard.agent import ReferenceAgent


@pytest.mark.parametrize("name", ["calculator", "lookup", "weather"])
async def test_reference_agent(name, example_scenarios, llm_cassette, golden_trajectory):
    scenario = example_scenarios[name]
    model = llm_cassette.model("local/smollm2")
    result = await ReferenceAgent(scenario.config).run(model, scenario.question, seed=scenario.seed)
    assert result.trajectory.agent.model_name == "local/smollm2"
    golden_trajectory(result.trajectory)
