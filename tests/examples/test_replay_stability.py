"""Replaying a cassette is deterministic and reproduces the live run it was recorded from.

The golden file was written by the recording run from the *live* trajectory (the agent ran on a
``RecordingModel`` wrapping the embedded model), so equality with it shows that a replay equals
its live original, model name included, not just that replays agree with each other.
"""

from __future__ import annotations

from pathlib import Path

from trajguard.agent import ReferenceAgent
from trajguard.capture import Cassette, ReplayModel
from trajguard.core.normalize import normalize
from trajguard.golden import golden_text

HERE = Path(__file__).parent
RECORDED = "test_frozen_agent/test_reference_agent_calculator.json"
REPLAYS = 20


async def test_twenty_replays_give_one_trajectory_equal_to_the_live_original(example_scenarios):
    scenario = example_scenarios["calculator"]
    cassette_file = HERE / "cassettes" / RECORDED
    live_golden = (HERE / "golden" / RECORDED).read_text(encoding="utf-8")

    distinct: set[str] = set()
    for replay_index in range(REPLAYS):
        model = ReplayModel(Cassette.load(cassette_file))
        # a different run seed each time: seeds are sent, but replay must not depend on them
        result = await ReferenceAgent(scenario.config).run(
            model, scenario.question, seed=replay_index
        )
        assert model.unused == 0
        distinct.add(golden_text(normalize(result.trajectory)))

    assert len(distinct) == 1
    assert distinct.pop() == live_golden
