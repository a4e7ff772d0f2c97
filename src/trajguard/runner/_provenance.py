"""A batch's manifest: where it came from, and whether a run set can resume it."""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard import __version__
from trajguard.errors import StoreError, SuiteError
from trajguard.redaction import scrub
from trajguard.runner._agent_code import agent_codes
from trajguard.runner._options import BatchOptions
from trajguard.runner._plan import Plan
from trajguard.suite import (
    DEFAULT_SAMPLES,
    EARLIER_DEFAULT_SAMPLES,
    JudgeCriterion,
    ResolvedScenario,
    Suite,
    scenario_floors,
)

__all__ = ["check_resumable", "new_manifest", "record_executor", "resumable_manifest"]

_NUMBER = (int, float)
_RESUME_FIELDS: tuple[tuple[str, tuple[type, ...], bool], ...] = (
    ("batch_seed", (int,), True),
    ("runs", (int,), False),
    ("variants", (list,), False),
    ("scenarios", (list,), False),
    ("model_override", (str,), False),
    ("api_base_override", (str,), False),
    ("timeout_override", _NUMBER, False),
    ("concurrency_override", (int,), False),
    ("config_hashes", (dict,), False),
    ("agent_code", (dict,), False),
    ("executors", (list,), False),
    ("interrupted_runs", (list,), False),
)
"""The manifest fields a resume reads: name, the types it may have, whether it is required."""


def _git_sha(directory: Path) -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],  # noqa: S607 - git from PATH, as the user runs it
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def _machine() -> dict[str, Any]:
    """Which machine ran the batch, so a report can say when latency compares machines (the
    host name is hashed: a baseline is committed)."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in info if ln.startswith("model name")), cpu
            )
    except OSError:
        pass
    host = hashlib.sha256(platform.node().encode()).hexdigest()[:12]
    return {"host": host, "cpu": cpu, "cores": os.cpu_count(), "system": platform.system()}


def new_manifest(
    suite: Suite, options: BatchOptions, plan: Plan, batch_seed: int
) -> dict[str, Any]:
    suite_dir = suite.path.parent if suite.path else Path.cwd()
    return {
        "kind": "trajguard-runset",
        "batch_id": uuid.uuid4().hex[:12],
        "suite": suite.name,
        "suite_file": str(suite.path) if suite.path else None,
        "models": sorted({arm.model for _, arm in plan}),
        "scenarios": sorted({spec.scenario for spec, _ in plan}),
        "variants": list(options.variants),
        "model_override": options.model,
        # only --model's endpoint; a key or password in it is not stored (resume asks again)
        "api_base_override": scrub(options.api_base)
        if options.model and options.api_base
        else None,
        "timeout_override": options.timeout_s,
        "concurrency_override": options.concurrency,
        "runs": options.runs,
        "planned_runs": len(plan),
        "batch_seed": batch_seed,
        "seed_fixed": options.seed is not None,
        "git_sha": _git_sha(suite_dir),
        "config_hashes": {f"{s.scenario}/{s.variant}": s.config_hash for s, _ in plan},
        # the hash of each arm's agent code (module, package, command file): --resume compares
        "agent_code": {key: code.hash for key, code in agent_codes(plan).items()},
        "tolerances": {arm.scenario: dict(arm.tolerances) for _, arm in plan},
        "trajguard_version": __version__,
        "machine": _machine(),
        "started_at": datetime.now(UTC).isoformat(),
        "finished_at": None,
        "status": "running",
        # scenarios' tags (issue 25), only when some scenario has tags: older manifests unchanged
        **_tags(plan),
        # scenarios' descriptions, shown in the reports (only when some scenario has one)
        **_descriptions(suite, plan),
        # each scenario's floor (issue 39), only when some scenario has one
        **_floors(suite, plan),
        # the suite's own gating metrics (issue 38), only when it names some
        **({"gate": list(suite.defaults.gate)} if suite.defaults.gate else {}),
    }


def _tags(plan: Plan) -> dict[str, Any]:
    tags = {arm.scenario: list(arm.tags) for _, arm in plan if arm.tags}
    return {"tags": dict(sorted(tags.items()))} if tags else {}


def _floors(suite: Suite, plan: Plan) -> dict[str, Any]:
    named = {spec.scenario for spec, _ in plan}
    own = {s.id: s.floor for s in suite.scenarios if s.id in named}
    found = scenario_floors(suite.defaults.floor, own)
    return {"floors": found} if found else {}


def _descriptions(suite: Suite, plan: Plan) -> dict[str, Any]:
    named = {spec.scenario for spec, _ in plan}
    found = {s.id: s.description for s in suite.scenarios if s.id in named and s.description}
    return {"descriptions": dict(sorted(found.items()))} if found else {}


def resumable_manifest(manifest: dict[str, Any], runset: Path) -> dict[str, Any]:
    """The manifest of a run set ``--resume`` can finish: every field it reads of the kind
    ``trajguard run`` writes.

    Raises:
        StoreError: a field is missing or of another kind (the manifest was not written by
            ``trajguard run``, or was edited).
    """
    for name, kinds, required in _RESUME_FIELDS:
        value = manifest.get(name)
        if value is None and not required:
            continue
        if isinstance(value, bool) or not isinstance(value, kinds):
            shown = "missing" if value is None else f"a {type(value).__name__}"
            raise StoreError(
                f"the manifest's {name} is {shown}, so the batch cannot be resumed",
                file=runset / "manifest.json",
                path=name,
                hint="resume a run set `trajguard run` started; this manifest was not written "
                "by it, or was edited",
            )
    for name in ("variants", "scenarios", "interrupted_runs"):
        if not all(isinstance(item, str) for item in manifest.get(name) or ()):
            raise StoreError(
                f"the manifest's {name} holds something other than names",
                file=runset / "manifest.json",
                path=name,
                hint="resume a run set `trajguard run` started",
            )
    return manifest


def check_resumable(manifest: dict[str, Any], suite: Suite, plan: Plan, runset: Path) -> None:
    if manifest.get("suite") != suite.name:
        raise SuiteError(
            f"run set {runset} belongs to suite {manifest.get('suite')!r}, not {suite.name!r}",
            hint="resume with the suite file that started the batch",
        )
    recorded = manifest.get("config_hashes", {})
    for spec, arm in plan:
        key = f"{spec.scenario}/{spec.variant}"
        if key in recorded and recorded[key] != spec.config_hash:
            if recorded[key] == _hash_with_earlier_judge_default(arm):
                raise SuiteError(
                    f"scenario {key} was started when a judge criterion's `samples` defaulted "
                    f"to {EARLIER_DEFAULT_SAMPLES}; it now defaults to {DEFAULT_SAMPLES}, which "
                    f"changes the scenario's config hash ({recorded[key]} → {spec.config_hash})",
                    file=runset,
                    hint=f"to resume this batch, add `samples: {EARLIER_DEFAULT_SAMPLES}` to "
                    "its judge criteria; or start a new batch",
                )
            raise SuiteError(
                f"scenario {key} changed since this batch started (config hash "
                f"{recorded[key]} → {spec.config_hash})",
                file=runset,
                hint="a resumed batch must run the same definitions: start a new batch instead",
            )
    _check_agent_code(manifest, plan, runset)


def _check_agent_code(manifest: dict[str, Any], plan: Plan, runset: Path) -> None:
    """Refuse a batch whose agent's code changed since it started (one agent per run set)."""
    recorded = manifest.get("agent_code", {})
    if not recorded:  # a run set written before agent code was hashed
        return
    for key, code in agent_codes(plan).items():
        if key in recorded and recorded[key] != code.hash:
            files = ", ".join(code.shown) or "no file found now"
            raise SuiteError(
                f"the agent of scenario {key} changed since this batch started (its code: "
                f"{files}; hash {recorded[key]} → {code.hash})",
                file=runset,
                hint="a resumed batch must run the same agent: restore its code to finish this "
                "batch, or start a new batch with the changed agent",
            )


def _hash_with_earlier_judge_default(arm: ResolvedScenario) -> str | None:
    """The config hash ``arm`` had when an unset judge ``samples`` meant
    :data:`EARLIER_DEFAULT_SAMPLES` (``None``: no judge criterion leaves it unset)."""
    criteria = [
        c.model_copy(update={"samples": EARLIER_DEFAULT_SAMPLES})
        if isinstance(c, JudgeCriterion) and "samples" not in c.model_fields_set
        else c
        for c in arm.pass_criteria
    ]
    if criteria == arm.pass_criteria:
        return None
    return arm.model_copy(update={"pass_criteria": criteria}).config_hash()


def record_executor(manifest: dict[str, Any], record: Mapping[str, Any], *, resumed: bool) -> None:
    """Add the executor of this invocation to the manifest's ``executors`` (the batch's start
    first, then each resume: kind, settings and, on Ray, the cluster and its nodes)."""
    entry = {**record, "resumed": resumed, "at": datetime.now(UTC).isoformat()}
    manifest["executors"] = [*manifest.get("executors", []), entry]
