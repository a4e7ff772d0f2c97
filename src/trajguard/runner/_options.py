"""What to run: the batch options that override a suite's defaults, checked when made."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from trajguard.errors import SuiteError, UsageError
from trajguard.redaction import REDACTED, scrub
from trajguard.runner._budget import Budget
from trajguard.suite import (
    BASE_VARIANT,
    MAX_TIMEOUT_S,
    ExecutorSettings,
    LocalExecutorSettings,
    RayExecutorSettings,
)

__all__ = ["MAX_RUNS", "BatchOptions", "ExecutorChoice", "options_from_manifest"]

MAX_RUNS = 10_000
"""Most runs per scenario and variant a batch may plan (a suite's ``runs`` has the same cap)."""


_RAY_FLAGS = {
    "address": "--ray-address",
    "num_cpus": "--ray-cpus",
    "resources": "--ray-resource",
    "embedded_model": "--ray-embedded-model",
    "max_retries": "--ray-max-retries",
}


@dataclass(frozen=True, kw_only=True)
class ExecutorChoice:
    """Where the runs execute: ``--executor`` and the ``--ray-…`` options, each overriding the
    suite's ``defaults.executor`` (or, on resume, the executor the batch was started with).

    Raises:
        UsageError: a value Ray would refuse (checked as the suite's ``defaults.executor`` is).
    """

    kind: Literal["local", "ray"] | None = None
    ray: Mapping[str, Any] = field(default_factory=dict)
    """Fields of :class:`~trajguard.suite.RayExecutorSettings` given on the command line."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.ray) - set(_RAY_FLAGS))
        if unknown:
            raise UsageError(f"unknown Ray executor options {unknown}")
        _ray_settings({}, self.ray)

    def resolve(self, default: ExecutorSettings) -> ExecutorSettings:
        """The executor of a batch whose suite (or manifest) says ``default``.

        Raises:
            UsageError: ``--ray-…`` options for a batch that runs on the local executor.
        """
        kind = self.kind or default.kind
        if kind == "local":
            if self.ray:
                flags = ", ".join(_RAY_FLAGS[name] for name in self.ray)
                raise UsageError(
                    f"{flags}: Ray executor options, and this batch runs on the local executor",
                    hint="add --executor ray (or set defaults.executor: ray in the suite)",
                )
            return LocalExecutorSettings()
        base = default.model_dump() if isinstance(default, RayExecutorSettings) else {}
        return _ray_settings(base, self.ray)


def _ray_settings(base: Mapping[str, Any], given: Mapping[str, Any]) -> RayExecutorSettings:
    try:
        return RayExecutorSettings.model_validate({**base, **given, "kind": "ray"})
    except ValidationError as exc:
        problems = [
            f"{_RAY_FLAGS.get(str(error['loc'][0]), error['loc'][0])}: {error['msg']}"
            for error in exc.errors()
        ]
        raise UsageError("; ".join(problems)) from None


@dataclass(frozen=True, kw_only=True)
class BatchOptions:
    """What to run: every option overrides the suite's defaults when set.

    The fields are the options of ``trajguard run`` (``--runs``, ``--model``, ``--api-base``,
    ``--scenario``, ``--variant``, ``--seed``, ``--concurrency``, ``--timeout``, ``--executor``,
    the ``--ray-…`` options, ``--max-cost`` and ``--max-minutes``), and are checked as the
    command line checks them. The budget is this command's: a resumed batch keeps the budget
    given to the command that resumes it (none: it runs to its end).

    Raises:
        UsageError: a value out of range, ``api_base`` without ``model``, or a model string
            litellm cannot use.
    """

    runs: int | None = None
    model: str | None = None
    api_base: str | None = None
    scenarios: Sequence[str] = ()
    variants: Sequence[str] = (BASE_VARIANT,)
    seed: int | None = None
    concurrency: int | None = None
    timeout_s: float | None = None
    executor: ExecutorChoice = field(default_factory=ExecutorChoice)
    budget: Budget = field(default_factory=Budget)

    def __post_init__(self) -> None:
        object.__setattr__(self, "scenarios", tuple(dict.fromkeys(self.scenarios)))
        object.__setattr__(self, "variants", tuple(dict.fromkeys(self.variants)))
        for name, value in (("--runs", self.runs), ("--concurrency", self.concurrency)):
            if value is not None and value < 1:
                raise UsageError(f"{name} must be at least 1, got {value}")
        if self.runs is not None and self.runs > MAX_RUNS:
            raise UsageError(
                f"--runs must be at most {MAX_RUNS:,} per scenario and variant, got {self.runs:,}",
                hint="split a larger experiment into several batches",
            )
        timeout = self.timeout_s
        if timeout is not None and not (math.isfinite(timeout) and 0 < timeout <= MAX_TIMEOUT_S):
            raise UsageError(
                f"--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g} "
                f"(a week), got {timeout}"
            )
        if self.api_base is not None and self.model is None:
            raise UsageError(
                "--api-base is the endpoint of the model given with --model, and there is none",
                hint="pass --model too, or set api_base in the suite's defaults",
            )
        if self.model is not None:
            from trajguard.capture import model_problem  # imports litellm: only when needed

            problem = model_problem(self.model, self.api_base)
            if problem is not None:
                raise UsageError(f"--model {self.model!r}: {problem}")


_RECORDED = (
    ("model", "model_override", "--model"),
    ("api_base", "api_base_override", "--api-base"),
    ("timeout_s", "timeout_override", "--timeout"),
)


def options_from_manifest(manifest: dict[str, Any], options: BatchOptions) -> BatchOptions:
    """The batch as it was started, options included (so ``--resume DIR`` alone completes it);
    ``runs``, ``scenarios`` and ``concurrency`` given now extend, narrow or change it (sequential
    looks resume the same run set with more runs for fewer scenarios).

    Raises:
        SuiteError: an option that defines the runs (model, endpoint, timeout) is given with
            another value than the batch was started with.
    """
    for field_name, key, flag in _RECORDED:
        given, recorded = getattr(options, field_name), manifest.get(key)
        if given is None and isinstance(recorded, str) and REDACTED in recorded:
            # the endpoint held a secret and was stored redacted: it must be given again
            raise UsageError(
                f"this batch was started with {flag} {recorded}, whose secret is not stored",
                hint=f"resume with the same {flag} again",
            )
        if isinstance(given, str) and isinstance(recorded, str):
            given, recorded = scrub(given), scrub(recorded)  # never print the secret
        if given is not None and recorded is not None and given != recorded:
            raise SuiteError(
                f"{flag} {given} differs from the {recorded} this batch was started with",
                hint="resume without it: the run set remembers the options it was started with",
            )
    if options.runs is not None:
        manifest["runs"] = max(options.runs, manifest.get("runs") or 0)
    if options.concurrency is not None:
        manifest["concurrency_override"] = options.concurrency
    return BatchOptions(
        runs=options.runs or manifest.get("runs"),
        model=options.model or manifest.get("model_override"),
        api_base=options.api_base or manifest.get("api_base_override"),  # checked above
        scenarios=options.scenarios or manifest.get("scenarios", ()),
        variants=manifest.get("variants", (BASE_VARIANT,)),
        seed=manifest.get("batch_seed"),
        concurrency=options.concurrency or manifest.get("concurrency_override"),
        timeout_s=options.timeout_s or manifest.get("timeout_override"),
        executor=options.executor,
        budget=options.budget,
    )
