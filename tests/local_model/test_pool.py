"""One embedded-model server per slot, and the counters that show the prefix cache working."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest

from trajguard.local_model import (
    current_slot,
    get_local_server,
    local_slots,
    model_slot,
    running_local_server,
    stop_local_server,
)
from trajguard.local_model._constants import SERVED_MODEL_NAME

pytestmark = pytest.mark.live


@pytest.fixture
def private_servers(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("trajguard.local_model._pool._servers", {})
    yield
    stop_local_server()


def _chat(base_url: str, messages: list[dict[str, str]], seed: int) -> dict:
    body = {"model": SERVED_MODEL_NAME, "messages": messages, "max_tokens": 8, "seed": seed}
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as reply:
        return json.loads(reply.read())


def test_a_conversation_that_grows_is_evaluated_only_where_it_is_new(private_servers) -> None:
    server = get_local_server()
    question = [{"role": "user", "content": "Name three colours of the rainbow, please."}]
    first = _chat(server.base_url, question, seed=1)
    after_first = server.counters()
    follow_up = [
        *question,
        {"role": "assistant", "content": first["choices"][0]["message"]["content"]},
        {"role": "user", "content": "And two more?"},
    ]
    second = _chat(server.base_url, follow_up, seed=2)
    after_second = server.counters()
    assert after_second["requests"] - after_first["requests"] == 1
    evaluated = after_second["evaluated"] - after_first["evaluated"]
    sampled = after_second["sampled"] - after_first["sampled"]
    prompt = second["usage"]["prompt_tokens"]
    # The first request's prompt (and answer) is still in the cache: only the rest is computed.
    assert 0 < evaluated - sampled < prompt - first["usage"]["prompt_tokens"] + sampled
    assert evaluated < prompt


def test_slots_get_their_own_servers(private_servers) -> None:
    assert current_slot() == 0
    zero = get_local_server()
    with model_slot(1):
        assert current_slot() == 1
        one = get_local_server()
        assert running_local_server() is one
    assert running_local_server() is zero and zero.pid != one.pid
    assert running_local_server(1) is one
    assert local_slots(1) == 1 and local_slots(1000) >= 1


def test_a_batch_gives_each_concurrent_run_its_own_server(private_servers, tmp_path: Path) -> None:
    from trajguard.runner import BatchOptions, run_batch
    from trajguard.suite import load_suite

    if local_slots(2) < 2:
        pytest.fail("this machine has one core: slots cannot be shown")
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        "name: slots\ndefaults: {runs: 2, concurrency: 2, max_tokens: 16, max_steps: 2}\n"
        "scenarios:\n  - id: hello\n    agent: {kind: builtin}\n    input: Say hello.\n"
    )
    result = asyncio.run(run_batch(load_suite(suite_file), tmp_path / "rs", BatchOptions(seed=3)))
    assert sum(result.counts.values()) == 2
    servers = [running_local_server(slot) for slot in (0, 1)]
    assert all(s is not None for s in servers)
    requests = [s.counters()["requests"] for s in servers if s is not None]
    assert all(count >= 1 for count in requests), "both servers served runs"
