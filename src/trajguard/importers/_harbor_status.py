"""How a Harbor trial ended: its ``exception_info`` → a run status (pure).

Harbor classifies its exceptions itself (``harbor.models.trial.error_policy``: whether a trial's
reward is valid, whether it is graded); newer versions write that verdict into the trial's
``result.json`` as ``exception_info.policy``, and this module falls back on a copy of Harbor
0.26's table for results that lack it. The rule (docs/reference/import-harbor.md, "Status"):

* no exception: ``ok``;
* ``AgentTimeoutError``: ``timeout``;
* Harbor holds the trial's reward invalid (``has_valid_reward`` false: the environment, the
  verifier, the model provider or the credentials failed, or the trial was cancelled):
  ``harness_error``, left out of every statistic as Harbor leaves it out of its reward stats;
* the agent gave up (Harbor keeps the reward: it overflowed its context or its output, or
  refused): ``agent_error``;
* any other exception (Harbor keeps the reward: the agent exited non-zero or raised an exception
  Harbor does not know): ``crash``;
* and either of the last two before the agent started (environment set-up): ``harness_error``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from trajguard.outcome import Status

__all__ = ["GAVE_UP", "INVALID_REWARD", "VALID_REWARD", "parse_time", "trial_status"]

INVALID_REWARD = frozenset(
    {
        # the environment or the verifier failed (Harbor: retried, not graded)
        "EnvironmentStartTimeoutError",
        "SandboxBuildFailedError",
        "AgentSetupTimeoutError",
        "HealthcheckError",
        "SandboxLikelyOutOfMemoryError",
        "MemoryLimitExceededError",
        "SSHAccessError",
        "GKEExecStreamClosedError",
        "GKEPodNotFoundError",
        "RuntimeRequestError",
        "AddTestsDirError",
        "DownloadVerifierDirError",
        # the model provider failed (Harbor: retried, graded, reward invalid)
        "ApiError",
        "ApiRateLimitError",
        "ApiInternalServerError",
        "ApiOverloadedError",
        "ApiConnectionClosedError",
        "ApiResponseStalledError",
        "UnknownApiError",
        "NetworkConnectionError",
        "ApiConnectionError",
        "ApiUsageLimitError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "APIConnectionError",
        "APIError",
        "Timeout",
        # the request, the budget or the verifier's output (not retried, reward invalid)
        "UnsupportedModelParametersError",
        "BadRequestError",
        "UnprocessableEntityError",
        "UnsupportedParamsError",
        "APIResponseValidationError",
        "BudgetExceededError",
        "VerifierTimeoutError",
        "RewardFileNotFoundError",
        "RewardFileEmptyError",
        "VerifierOutputParseError",
        # credentials, a missing model or extra, a cancelled trial
        "AgentAuthenticationError",
        "ModelNotFoundError",
        "ApiProviderResourceNotFoundError",
        "AuthenticationError",
        "PermissionDeniedError",
        "NotFoundError",
        "ServiceOperationsUnsupportedError",
        "VercelScopeError",
        "DspyImportError",
        "MissingExtraError",
        "RegradeError",
        "CancelledError",
    }
)
"""Harbor 0.26's exception types whose trials have no valid reward (``has_valid_reward``)."""

GAVE_UP = frozenset(
    {
        "ContextWindowExceededError",
        "OutputTokenExceededError",
        "ContextLengthExceededError",
        "OutputLengthExceededError",
        "AgentSafetyRefusalError",
        "ContentPolicyViolationError",
    }
)
"""Harbor's exception types of an agent that gave up (``agent_error``); any other is a crash."""

VALID_REWARD = GAVE_UP | {"NonZeroAgentExitCodeError", "AgentTimeoutError"}
"""Harbor 0.26's exception types that are the agent's: the trial is still graded."""


def trial_status(result: Mapping[str, Any]) -> Status:
    """The status of one trial, from its ``result.json`` (already parsed)."""
    info = result.get("exception_info")
    if not isinstance(info, Mapping):
        return "ok"
    kind = str(info.get("exception_type") or "")
    if kind == "AgentTimeoutError":
        return "timeout"
    if not _valid_reward(kind, info.get("policy")):
        return "harness_error"
    if _before_agent(result, info):
        return "harness_error"
    return "agent_error" if kind in GAVE_UP else "crash"


def _valid_reward(kind: str, policy: object) -> bool:
    if isinstance(policy, Mapping) and isinstance(policy.get("has_valid_reward"), bool):
        return bool(policy["has_valid_reward"])
    return kind not in INVALID_REWARD


def _before_agent(result: Mapping[str, Any], info: Mapping[str, Any]) -> bool:
    """The exception happened before the agent started (or the agent never started)."""
    execution = result.get("agent_execution")
    started = parse_time(execution.get("started_at")) if isinstance(execution, Mapping) else None
    if started is None:
        return True
    occurred = parse_time(info.get("occurred_at"))
    return occurred is not None and occurred < started


def parse_time(value: object) -> datetime | None:
    """A Harbor timestamp (ISO 8601; a naive one is UTC, as Harbor writes trials' times)."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
