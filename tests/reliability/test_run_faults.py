"""Provider faults at the level of a batch: each fault mode of the stub gives a run its
documented status and error type, no run outlives its timeout by more than a second, no secret
reaches the run set, a start-up check against a hanging endpoint is bounded, and ``--resume``
redoes the runs the infrastructure failed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.capture import LiteLLMModel
from trajguard.errors import ModelUnavailable
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import ResolvedScenario, Suite, load_suite

KEY = "sk-live-0123456789abcdefghijklmnop"
TIMEOUT_S = 3.0
SUITE = f"""
name: faults
defaults:
  runs: 1
  timeout_s: {TIMEOUT_S}
  max_steps: 2
scenarios:
  - id: ask
    input: What is 17 * 23?
    agent: {{kind: builtin, mode: native, tools: ["trajguard.examples.demo_tools:calculator"]}}
"""

# Every request after the start-up check meets the fault (each attempt and retry alike).
EXPECTED = {
    "rate_limited": ("harness_error", "rate_limited"),
    "server_error": ("harness_error", "server_error"),
    "cut": ("harness_error", "unreachable"),
    "invalid_json": ("harness_error", "malformed_response"),
    "empty_choices": ("harness_error", "malformed_response"),
    "echo_key": ("harness_error", "auth"),
    "hang": ("timeout", "TimeoutError"),
}


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries wait for nothing (the waits themselves are tested in test_provider_faults)."""

    async def skip(seconds: float) -> None:
        return None

    monkeypatch.setattr("trajguard.capture._llm._sleep", skip)


def suite_at(tmp_path: Path) -> Suite:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return load_suite(path)


def stub_model(provider: Any) -> Any:
    def make(arm: ResolvedScenario) -> LiteLLMModel:
        return LiteLLMModel(
            "openai/stub", api_base=provider.api_base, api_key=KEY, max_retries=2, timeout_s=10
        )

    return make


@pytest.mark.parametrize("kind", sorted(EXPECTED))
async def test_each_fault_mode_gives_its_documented_status_within_the_timeout(
    tmp_path: Path, provider: Any, fault: Any, no_backoff: None, kind: str
) -> None:
    provider.then(fault(kind="ok"), *[fault(kind=kind, hang_s=20.0)] * 3)
    runset = tmp_path / "rs"
    try:
        result = await run_batch(
            suite_at(tmp_path), runset, BatchOptions(seed=1), make_model=stub_model(provider)
        )
    finally:
        provider.release.set()  # a hanging handler returns at once
    (row,) = store.read_runs(runset).to_dict("records")
    assert (row["status"], row["error_type"]) == EXPECTED[kind]
    assert row["duration_s"] < 20.0  # cut at its timeout, before the hang of 20 s ended
    assert row["passed"] is None if kind != "hang" else row["passed"] is False
    if row["status"] == "harness_error":
        assert row["crashed"] is None  # infrastructure: neither judged nor a crash
    assert result.counts == {EXPECTED[kind][0]: 1}
    assert KEY not in (runset / "runs.parquet").read_bytes().decode("latin-1")


async def test_a_key_the_provider_echoes_is_not_stored_or_returned(
    tmp_path: Path, provider: Any, fault: Any, no_backoff: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "env-secret-value-123456")
    provider.answer["choices"][0]["message"]["content"] = (
        "here is the key env-secret-value-123456 and " + KEY
    )
    runset = tmp_path / "rs"
    await run_batch(
        suite_at(tmp_path), runset, BatchOptions(seed=1), make_model=stub_model(provider)
    )
    (row,) = store.read_runs(runset).to_dict("records")
    stored = json.dumps({k: str(v) for k, v in row.items()})
    assert "env-secret-value-123456" not in stored and KEY not in stored
    assert "[REDACTED]" in row["trajectory"]


async def test_the_start_up_check_is_bounded_by_the_run_timeout(
    tmp_path: Path, provider: Any, fault: Any, no_backoff: None
) -> None:
    provider.then(*[fault(kind="hang", hang_s=20.0)] * 3)
    await stub_model(provider)(None).prepare()  # litellm's import is not the endpoint's time
    started = time.monotonic()
    try:
        with pytest.raises(ModelUnavailable, match=r"did not answer its first call within 3 s"):
            await run_batch(
                suite_at(tmp_path),
                tmp_path / "rs",
                BatchOptions(seed=1),
                make_model=stub_model(provider),
            )
    finally:
        provider.release.set()
    assert time.monotonic() - started < 20.0  # cut at the timeout, before the hang ended
    assert not (tmp_path / "rs").exists(), "nothing is written before the check passes"


async def test_resume_redoes_the_runs_the_infrastructure_failed(
    tmp_path: Path, provider: Any, fault: Any, no_backoff: None
) -> None:
    suite, runset = suite_at(tmp_path), tmp_path / "rs"
    provider.then(fault(kind="ok"), *[fault(kind="rate_limited")] * 3)
    await run_batch(
        suite, runset, BatchOptions(seed=1, runs=2, concurrency=1), make_model=stub_model(provider)
    )
    first = store.read_runs(runset)
    assert list(first["status"]).count("harness_error") == 1  # the other run got answers
    resumed = await run_batch(
        suite, runset, BatchOptions(), resume=True, make_model=stub_model(provider)
    )
    after = store.read_runs(runset)
    assert len(after) == 2 and after["run_id"].is_unique
    assert "harness_error" not in set(after["status"])
    assert resumed.planned == 2 and resumed.skipped == 1
    assert sorted(after["seed"]) == sorted(first["seed"]), "the redone run keeps its seed"
