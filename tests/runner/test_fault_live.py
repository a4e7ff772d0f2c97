"""A model fault at the wire endpoint against a command agent written with the openai SDK, on
the embedded SmolLM2 (llama.cpp over HTTP): its first model call meets a 429 with Retry-After,
the SDK waits and retries, and the retry shows in the trajectory and in the resilience columns;
an agent that does not retry crashes (its process exits non-zero: a ``crash``) with the columns
saying so."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.runner import BatchOptions, execute
from trajguard.suite import load_suite

pytestmark = pytest.mark.live

AGENT = r"""
import os, sys
import openai

env = os.environ
client = openai.OpenAI(base_url=env["TRAJGUARD_API_BASE"], api_key="sk-any",
                       max_retries=int(sys.argv[1]), timeout=120)
messages = [{"role": "system", "content": env["TRAJGUARD_SYSTEM_PROMPT"]},
            {"role": "user", "content": sys.argv[2]}]
reply = client.chat.completions.create(model=env["TRAJGUARD_MODEL"], messages=messages,
                                       max_tokens=32)
print(reply.choices[0].message.content)
"""


def test_a_429_with_retry_after_is_retried_by_the_openai_sdk(
    tmp_path: Path, local_model: Any
) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    argv = json.dumps([sys.executable, "agent.py", "{params.retries}", "{input}"])
    (tmp_path / "suite.yaml").write_text(
        "name: chaos-live\ndefaults: {runs: 1}\nscenarios:\n"
        f"  - id: ask\n    agent:\n      kind: command\n      argv: {argv}\n"
        "      system_prompt: Answer in one short sentence.\n      params: {retries: 2}\n"
        "    input: Say hello.\n"
        "    faults: [{kind: provider_rate_limited, at_call: 1, seconds: 1}]\n"
        "    variants:\n      no_retry: {params: {retries: 0}}\n"
    )
    runset = tmp_path / "runs"
    execute(
        load_suite(tmp_path / "suite.yaml"),
        runset,
        BatchOptions(seed=3, variants=("base", "no_retry")),
    )
    rows = {r["variant"]: r for r in store.read_runs(runset).to_dict("records")}
    retried, gave_up = rows["base"], rows["no_retry"]
    assert retried["status"] == "ok", retried["error_message"]
    assert (retried["faults_injected"], dict(retried["fault_kinds"])) == (
        1,
        {"provider_rate_limited": 1},
    )
    trajectory = json.loads(retried["trajectory"])
    (error,) = trajectory["extra"]["llm_errors"]
    assert (error["fault"], error["type"]) == ("provider_rate_limited", "InjectedFault")
    answered = [s for s in trajectory["steps"] if s["source"] == "agent"]
    assert len(answered) == 1 and answered[0]["message"], "the retry reached the model"
    assert retried["llm_calls"] == 1
    assert retried["retried_after_fault"] is True
    assert retried["recovered_or_escalated"] is True

    assert gave_up["status"] == "crash"
    assert gave_up["faults_injected"] == 1
    assert gave_up["retried_after_fault"] is False
    assert gave_up["recovered_or_escalated"] is False
