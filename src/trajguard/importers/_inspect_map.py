"""One Inspect sample (plain JSON, from either reader) → one :class:`ImportedRun`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from trajguard.atif import Agent
from trajguard.core.normalize import canonical_json
from trajguard.errors import SourceLogError
from trajguard.importers._inspect_log import TOOL_EVENTS, plain, resolve_attachments
from trajguard.importers._inspect_scores import judge
from trajguard.importers._inspect_trajectory import message_text, trajectory
from trajguard.importers._model import ImportedRun
from trajguard.importers._pass_rule import PassRule
from trajguard.outcome import Status, crashed_flag

__all__ = ["LogContext", "sample_run"]

_TIME_LIMITS = frozenset({"time", "working"})
# An error of the model's endpoint or the network, not of the solver or its tools.
_PROVIDER_ERROR = re.compile(
    r"\b(APIConnectionError|APITimeoutError|RateLimitError|InternalServerError|"
    r"ServiceUnavailableError|APIStatusError|ConnectError|ConnectTimeout|ReadTimeout|"
    r"RemoteProtocolError|ConnectionError|ConnectionRefusedError)\b"
)
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*)\(")


@dataclass(frozen=True, kw_only=True)
class LogContext:
    """What every sample of one log shares."""

    file: Path
    task: str
    model: str
    definition: Mapping[str, Any]
    """The task's definition (task, version, args, plan, generate config): part of each hash."""
    agent: Agent
    variant: str
    rule: PassRule | None
    scorer: str | None
    qualify: bool
    """Scenario names carry the task name (the import spans more than one task)."""


def sample_run(raw: Mapping[str, Any], where: str, log: LogContext) -> ImportedRun:
    """The run of one sample x epoch.

    Raises:
        SourceLogError: the sample has no id or epoch.
    """
    sample_id, epoch = raw.get("id"), raw.get("epoch")
    if not isinstance(sample_id, str | int) or isinstance(sample_id, bool):
        raise SourceLogError("the sample has no id", file=log.file, path=f"{where}: $.id")
    if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 1:
        raise SourceLogError(
            "the sample has no epoch (a whole number from 1)",
            file=log.file,
            path=f"{where}: $.epoch",
        )
    sample = _resolved(raw)
    scenario = f"{log.task}/{sample_id}" if log.qualify else str(sample_id)
    usage = _usage(sample.get("model_usage"))
    status, error_type, message = _ending(sample)
    criteria, passed = judge(sample.get("scores") or {}, rule=log.rule, scorer=log.scorer)
    output = sample.get("output") or {}
    return ImportedRun(
        scenario=scenario,
        run_index=epoch - 1,
        variant=log.variant,
        model=log.model,
        status=status,
        passed=passed,
        crashed=crashed_flag(status),
        criteria=criteria,
        trajectory=trajectory(
            sample.get("messages") or [],
            agent=log.agent,
            model=str(output.get("model") or log.model),
            session_id=sample.get("uuid"),
            totals=(usage[0], usage[1]),
            tool_events=sample.get(TOOL_EVENTS) or (),
        ),
        prompt_tokens=usage[0],
        completion_tokens=usage[1],
        cost_usd=usage[2],
        final_output=_completion(output),
        started_at=_time(sample.get("started_at")),
        duration_s=_duration(sample),
        error_type=error_type,
        error_message=message,
        source_ref=f"{log.file.name}:{where}",
        config_hash=_hash(log.definition, sample),
    )


def _resolved(raw: Mapping[str, Any]) -> Mapping[str, Any]:
    """The sample with its attachments put back where the mapping reads text."""
    attachments = raw.get("attachments")
    if not attachments:
        return raw
    sample = dict(raw)
    for key in ("input", "messages", "output", TOOL_EVENTS):
        if key in sample:
            sample[key] = resolve_attachments(sample[key], attachments)
    return sample


def _usage(raw: Any) -> tuple[int | None, int | None, float | None]:
    if not isinstance(raw, Mapping) or not raw:
        return None, None, None
    prompt = completion = 0
    costs: list[float] = []
    for usage in raw.values():
        if not isinstance(usage, Mapping):
            continue
        prompt += int(usage.get("input_tokens") or 0)
        prompt += int(usage.get("input_tokens_cache_read") or 0)
        prompt += int(usage.get("input_tokens_cache_write") or 0)
        completion += int(usage.get("output_tokens") or 0)
        if isinstance(usage.get("total_cost"), int | float):
            costs.append(float(usage["total_cost"]))
    return prompt, completion, (sum(costs) if costs else None)


def _ending(sample: Mapping[str, Any]) -> tuple[Status, str | None, str | None]:
    error = sample.get("error")
    if isinstance(error, Mapping):
        message = str(error.get("message") or "")
        traceback = str(error.get("traceback") or "")
        match = _EXCEPTION.match(message)
        kind = match.group(1) if match else _last_exception(traceback) or "error"
        provider = _PROVIDER_ERROR.search(f"{message}\n{traceback}") is not None
        return ("harness_error" if provider else "crash"), kind, message
    limit = sample.get("limit")
    if isinstance(limit, Mapping):
        kind = str(limit.get("type") or "limit")
        reason = limit.get("reason") or f"the {kind} limit ({limit.get('limit')}) was reached"
        status: Status = "timeout" if kind in _TIME_LIMITS else "agent_error"
        if kind == "operator":
            status = "harness_error"
        return status, f"{kind}_limit", str(reason)
    return "ok", None, None


def _last_exception(traceback: str) -> str | None:
    for line in reversed(traceback.strip().splitlines()):
        name = line.split(":", 1)[0].strip()
        if name and re.fullmatch(r"[A-Za-z_][\w.]*", name):
            return name.rsplit(".", 1)[-1]
    return None


def _completion(output: Mapping[str, Any]) -> str | None:
    choices = output.get("choices") or []
    if choices and isinstance(choices[0], Mapping):
        message = choices[0].get("message") or {}
        text = message_text(message.get("content"))
        return text or None
    completion = output.get("completion")
    return str(completion) if completion else None


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _duration(sample: Mapping[str, Any]) -> float | None:
    total = sample.get("total_time")
    if isinstance(total, int | float) and not isinstance(total, bool):
        return float(total)
    started, completed = _time(sample.get("started_at")), _time(sample.get("completed_at"))
    if started is not None and completed is not None:
        return (completed - started).total_seconds()
    return None


def _hash(definition: Mapping[str, Any], sample: Mapping[str, Any]) -> str:
    data = {
        **definition,
        "input": plain(sample.get("input")),
        "target": plain(sample.get("target")),
        "choices": plain(sample.get("choices")),
    }
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()[:16]
