"""What a model call costs: the suite's price table over litellm's bundled map, unknown as
``None`` (never 0), the agent's calls apart from the judge's."""

from __future__ import annotations

import subprocess
import sys

import pytest

from trajguard.atif import Agent, FinalMetrics, Metrics, Step, Trajectory
from trajguard.capture import (
    Price,
    call_cost,
    judge_cost,
    price_of,
    trajectory_cost,
    user_cost,
)

MINI = "openai/gpt-4o-mini"


def _trajectory(*calls: tuple[int, int, int], model: str | None = None) -> Trajectory:
    steps = [Step(step_id=1, source="user", message="hi")]
    for i, (prompt, completion, cached) in enumerate(calls, start=2):
        metrics = Metrics(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached)
        steps.append(
            Step(step_id=i, source="agent", message="ok", model_name=model, metrics=metrics)
        )
    return Trajectory(
        schema_version="ATIF-v1.7", session_id="s", agent=Agent(name="a", version="1"), steps=steps
    )


def test_litellm_map_prices_a_provider_model_offline_without_importing_litellm() -> None:
    found = price_of(MINI)
    assert found is not None and found.source == "litellm"
    # litellm's bundled map: $0.15 / $0.60 per million tokens, cached input $0.075
    assert (found.price.input, found.price.output) == pytest.approx((0.15, 0.60))
    assert found.price.cached_input == pytest.approx(0.075)
    probe = (
        "import sys; from trajguard.capture._prices import price_of; "
        f"assert price_of({MINI!r}) is not None; print('litellm' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "False"  # read from its file: litellm was never imported


def test_the_suite_table_wins_and_the_embedded_model_has_no_price_without_it() -> None:
    table = {MINI: Price(input=1.0, output=2.0)}
    assert price_of(MINI, table) is not None
    assert price_of(MINI, table).source == "table"  # type: ignore[union-attr]
    assert price_of("local/smollm2") is None
    assert price_of("openai/no-such-model-anywhere") is None
    local = price_of("local/smollm2", {"local/smollm2": Price(input=0.02, output=0.05)})
    assert local is not None and local.price.output == 0.05


def test_a_call_costs_its_uncached_cached_and_completion_tokens() -> None:
    price = Price(input=2.0, output=8.0, cached_input=0.5)
    # 1000 prompt tokens of which 400 cached, 100 completion tokens
    assert call_cost(price, 1000, 100, 400) == pytest.approx((600 * 2 + 400 * 0.5 + 800) / 1e6)
    assert call_cost(Price(input=2.0, output=8.0), 1000, 0, 400) == pytest.approx(2000 / 1e6)


def test_a_run_costs_the_sum_of_its_calls_and_is_unknown_when_one_is() -> None:
    run = _trajectory((1000, 100, 0), (2000, 300, 1000))
    expected = (1000 * 0.15 + 100 * 0.6 + 1000 * 0.15 + 1000 * 0.075 + 300 * 0.6) / 1e6
    assert trajectory_cost(run, MINI) == pytest.approx(expected)
    assert trajectory_cost(run, "local/smollm2") is None  # unknown, not 0
    # a step naming a priced model is priced by it when the run's model has no price
    named = _trajectory((1000, 100, 0), model=MINI)
    assert trajectory_cost(named, "local/smollm2") == pytest.approx((150 + 60) / 1e6)
    assert trajectory_cost(_trajectory(), MINI) is None  # no model call: nothing priced


def test_a_cost_the_source_recorded_is_kept() -> None:
    run = _trajectory((1000, 100, 0))
    recorded = run.model_copy(update={"final_metrics": FinalMetrics(total_cost_usd=0.25)})
    assert trajectory_cost(recorded, MINI) == 0.25
    run.steps[1].metrics.cost_usd = 0.125  # type: ignore[union-attr]
    assert trajectory_cost(run, "local/smollm2") == 0.125


def test_the_judge_is_priced_apart_and_a_cached_judgement_made_no_call() -> None:
    sample = {"prompt_tokens": 1000, "completion_tokens": 100}
    records = [
        {"model": MINI, "cached": False, "samples": [sample, sample]},
        {"model": MINI, "cached": True, "samples": [sample]},
    ]
    assert judge_cost(records) == pytest.approx(2 * (150 + 60) / 1e6)
    assert judge_cost([{"model": "local/smollm2", "samples": [sample]}]) is None
    assert judge_cost([]) is None


def test_the_simulated_users_calls_are_priced_apart_at_its_model() -> None:
    call = {"model": "fake/answered-as", "prompt_tokens": 1000, "completion_tokens": 100}
    user = Step(step_id=3, source="user", message="it is 1234", extra={"simulated_user": call})
    run = _trajectory((1000, 100, 0))
    run.steps.append(user)
    assert trajectory_cost(run, MINI) == pytest.approx((150 + 60) / 1e6)  # the agent's only
    assert user_cost(run, MINI) == pytest.approx((150 + 60) / 1e6)
    local = {"local/smollm2": Price(input=1.0, output=2.0)}
    assert user_cost(run, "local/smollm2", local) == pytest.approx((1000 + 200) / 1e6)
    assert user_cost(run, "local/smollm2") is None  # its model has no price: unknown, not 0
    named = call | {"model": MINI}  # no suite model given: the model the call names
    run.steps[-1] = user.model_copy(update={"extra": {"simulated_user": named}})
    assert user_cost(run, None) == pytest.approx((150 + 60) / 1e6)
    assert user_cost(_trajectory((10, 1, 0)), MINI) is None  # no user call: nothing priced
    assert user_cost(None, MINI) is None


@pytest.mark.parametrize(
    "bad", [{"input": -1, "output": 1}, {"input": 1}, {"input": 1, "output": 1, "x": 1}]
)
def test_a_price_entry_is_checked(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Price(**bad)  # type: ignore[arg-type]
