"""The models of a batch are checked before the first client is made: a suite built in code
(not read by `load_suite`, whose checks it skips) with a model string naming no provider is
refused before any model starts or any run set is written (issue 41)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.runner import BatchOptions, plan_batch, run_batch
from trajguard.runner._models import make_models
from trajguard.suite import Suite

pytestmark = pytest.mark.filterwarnings("ignore:Items? .* the `ReadOnly` qualifier:UserWarning")


def _suite(model: str) -> Suite:
    return Suite.model_validate(
        {
            "name": "s",
            "defaults": {"model": model, "runs": 1},
            "scenarios": [{"id": "a", "agent": {"kind": "builtin"}, "input": "hi"}],
        }
    )


def test_a_model_naming_no_provider_gets_no_client() -> None:
    plan = plan_batch(_suite("local/smollm3"), BatchOptions(), batch_seed=1)
    with pytest.raises(SuiteError, match="did you mean 'local/smollm2'") as caught:
        make_models(plan, None)
    assert caught.value.message.startswith("scenario 'a', variant 'base': model 'local/smollm3'")


async def test_a_batch_of_it_writes_nothing(tmp_path: Path) -> None:
    runset = tmp_path / "runs" / "x"
    with pytest.raises(SuiteError, match="names no provider litellm knows"):
        await run_batch(_suite("qwen2.5"), runset, BatchOptions())
    assert not (tmp_path / "runs").exists()
