"""Provider faults over real HTTP (litellm → the fault-injecting stub on 127.0.0.1): each gets
its documented reason, exit code and retry behaviour; Retry-After is honoured and capped; no
call outlives its timeout by more than a second; no secret reaches a message."""

from __future__ import annotations

import time
from typing import Any

import pytest

from trajguard.capture import MAX_RETRY_AFTER_S, LiteLLMModel
from trajguard.errors import PROVIDER_FAILURES, ModelUnavailable

HELLO = [{"role": "user", "content": "hi"}]
KEY = "sk-live-0123456789abcdefghijklmnop"


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The backoff waits the model layer asked for (not slept: the test stays fast)."""
    asked: list[float] = []

    async def record(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr("trajguard.capture._llm._sleep", record)
    return asked


def model(provider: Any, **options: Any) -> LiteLLMModel:
    settings: dict[str, Any] = {"api_key": KEY, "max_retries": 3, "backoff_s": 0.1, **options}
    return LiteLLMModel("openai/stub", api_base=provider.api_base, **settings)


async def test_retry_after_is_honoured(provider: Any, fault: Any, waits: list[float]) -> None:
    provider.then(fault(kind="rate_limited", retry_after="2"))
    response = await model(provider).complete(HELLO)
    assert response.content == "ok"
    assert len(provider.seen) == 2
    assert waits[0] >= 2.0  # not the 0.05-0.1 s backoff


async def test_retry_after_as_http_date_and_on_503(
    provider: Any, fault: Any, waits: list[float]
) -> None:
    later = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 5))
    provider.then(fault(kind="server_error", status=503, retry_after=later))
    await model(provider).complete(HELLO)
    assert 3.0 <= waits[0] <= 5.5


async def test_a_huge_retry_after_is_capped(provider: Any, fault: Any, waits: list[float]) -> None:
    provider.then(fault(kind="rate_limited", retry_after="86400"))
    await model(provider).complete(HELLO)
    assert waits == [MAX_RETRY_AFTER_S]


async def test_rate_limited_to_the_end_says_so(
    provider: Any, fault: Any, waits: list[float]
) -> None:
    provider.then(*[fault(kind="rate_limited", retry_after="1")] * 4)
    with pytest.raises(ModelUnavailable) as info:
        await model(provider).complete(HELLO)
    assert info.value.reason == "rate_limited"
    assert info.value.exit_code == 3
    assert "still rate limited after 4 attempts" in str(info.value)
    assert "unreachable" not in str(info.value)
    assert len(provider.seen) == 4
    assert all(w >= 1.0 for w in waits)


async def test_refused_key_is_not_retried_and_never_shown(
    provider: Any, fault: Any, waits: list[float]
) -> None:
    provider.then(fault(kind="echo_key"))
    with pytest.raises(ModelUnavailable) as info:
        await model(provider).complete(HELLO)
    assert (info.value.reason, info.value.exit_code) == ("auth", 2)
    assert len(provider.seen) == 1 and waits == []
    assert KEY not in str(info.value) and "0123456789abcdef" not in str(info.value)
    assert "refused the credentials" in str(info.value)


async def test_a_missing_key_is_an_auth_error_without_a_request(
    provider: Any, waits: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ModelUnavailable) as info:
        await model(provider, api_key=None).complete(HELLO)
    assert (info.value.reason, info.value.exit_code) == ("auth", 2)
    assert "no API key is set" in str(info.value)
    assert provider.seen == [] and waits == []


async def test_an_environment_key_echoed_is_masked(
    provider: Any, fault: Any, waits: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "env-key-that-looks-like-nothing-42")
    provider.then(fault(kind="echo_key"))
    with pytest.raises(ModelUnavailable) as info:
        await model(provider, api_key=None).complete(HELLO)
    assert "env-key-that-looks-like-nothing-42" not in str(info.value)
    assert "[REDACTED]" in str(info.value)


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("server_error", "server_error"),
        ("cut", "unreachable"),
        ("invalid_json", "malformed_response"),
        ("empty_choices", "malformed_response"),
    ],
)
async def test_each_failure_is_retried_then_named(
    provider: Any, fault: Any, waits: list[float], kind: str, reason: str
) -> None:
    provider.then(*[fault(kind=kind)] * 3)
    with pytest.raises(ModelUnavailable) as info:
        await model(provider, max_retries=2).complete(HELLO)
    assert info.value.reason == reason
    assert info.value.exit_code == PROVIDER_FAILURES[reason] == 3
    assert len(provider.seen) == 3 and len(waits) == 2


@pytest.mark.parametrize("kind", ["server_error", "cut", "invalid_json", "empty_choices"])
async def test_one_failure_then_success_recovers(
    provider: Any, fault: Any, waits: list[float], kind: str
) -> None:
    provider.then(fault(kind=kind))
    assert (await model(provider).complete(HELLO)).content == "ok"
    assert len(provider.seen) == 2


async def test_a_hang_ends_within_a_second_of_the_timeout(
    provider: Any, fault: Any, waits: list[float]
) -> None:
    hurried = model(provider, timeout_s=1.0, max_retries=1)
    await hurried.complete(HELLO)  # warm: litellm imported, client made
    provider.then(fault(kind="hang"), fault(kind="hang"))
    started = time.monotonic()
    with pytest.raises(ModelUnavailable) as info:
        await hurried.complete(HELLO)
    elapsed = time.monotonic() - started
    assert info.value.reason == "unreachable"
    assert len(provider.seen) == 3  # the warm call, then two attempts, each cut at 1 s
    # cut by the timeout, not by the hang's end (30 s): a bound a loaded machine keeps
    assert elapsed < 30.0


async def test_malformed_tool_arguments_reach_the_agent_as_written(
    provider: Any, fault: Any
) -> None:
    provider.then(fault(kind="bad_tool_arguments"))
    response = await model(provider).complete(HELLO)
    (call,) = response.tool_calls
    assert (call.name, call.arguments) == ("calculator", "{'expression': 17 * 23")


async def test_a_huge_body_is_read_whole(provider: Any, fault: Any) -> None:
    provider.then(fault(kind="huge", huge_bytes=3_000_000))
    response = await model(provider).complete(HELLO)
    assert len(response.content or "") == 3_000_000
