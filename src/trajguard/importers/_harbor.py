"""Harbor job directories → imported runs: one run per trial (task x attempt).

A job directory (``harbor run -o JOBS --job-name NAME`` writes ``JOBS/NAME``) holds
``config.json`` and ``result.json`` of the job and one directory per trial, ``<task>__<id>/``,
with the trial's ``config.json``, ``result.json``, ``agent/trajectory.json`` (ATIF, read as it
is) and ``verifier/reward.txt``. A single trial directory can be imported too. The mapping,
field by field: docs/reference/import-harbor.md.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from trajguard.atif import Trajectory, load_trajectory
from trajguard.errors import InvalidTrajectory, SourceLogError
from trajguard.importers._harbor_files import head, job_provenance, trial_dirs, trial_result
from trajguard.importers._harbor_status import parse_time, trial_status
from trajguard.importers._model import ImportedBatch, ImportedCriterion, ImportedRun, ImportOptions
from trajguard.importers._pass_rule import PassRule, parse_pass_rule
from trajguard.outcome import crashed_flag

__all__ = ["DEFAULT_RULE", "detect", "read"]

DEFAULT_RULE = ">=1.0"
_TRAJECTORY = Path("agent") / "trajectory.json"


def detect(path: Path) -> bool:
    """A Harbor job directory (job config and result, trial subdirectories) or one trial."""
    path = Path(path)
    if not path.is_dir() or not (path / "result.json").is_file():
        return False
    if (path / "config.json").is_file() and any(trial_dirs(path)):
        return True
    start = head(path / "result.json")
    return '"trial_name"' in start and '"task_name"' in start


def read(paths: Sequence[Path], options: ImportOptions) -> ImportedBatch:
    """Read Harbor job (or trial) directories.

    Raises:
        SourceLogError: a directory that is not a Harbor job or trial, a result.json that is
            not JSON or lacks a field, or ``--scorer`` naming no reward key.
    """
    rule = parse_pass_rule(options.pass_rule or DEFAULT_RULE)
    trials: list[tuple[Path, dict[str, Any]]] = []
    jobs: list[dict[str, Any]] = []
    for path in paths:
        path = Path(path)
        dirs = list(trial_dirs(path)) if path.is_dir() else []
        if dirs:
            jobs.append(job_provenance(path))
        elif path.is_dir() and (path / "result.json").is_file():
            dirs = [path]
        else:
            raise SourceLogError(
                "not a Harbor job or trial directory",
                file=path,
                hint="name the directory `harbor run` wrote (JOBS_DIR/JOB_NAME), which holds "
                "config.json, result.json and one <task>__<id>/ directory per trial",
            )
        trials.extend((trial, trial_result(trial)) for trial in dirs)
    _check_distinct(trials)
    by_task: dict[str, list[tuple[Path, dict[str, Any]]]] = defaultdict(list)
    for trial, result in trials:
        by_task[result["task_name"]].append((trial, result))
    runs: list[ImportedRun] = []
    invalid: list[str] = []
    unjudged = 0
    for task in sorted(by_task):
        ordered = sorted(by_task[task], key=lambda t: (str(t[1].get("started_at")), t[0].name))
        for index, (trial, result) in enumerate(ordered):
            run = _run(trial, result, index, rule, options, invalid)
            unjudged += run.passed is None and run.status == "ok"
            runs.append(run)
    return ImportedBatch(
        source="harbor",
        suite=options.suite or _suite(trials),
        runs=tuple(runs),
        files=tuple(str(p) for p in paths),
        provenance={"jobs": jobs, "trials": len(trials)},
        lacks=_lacks(invalid, unjudged, runs),
        pass_rule=_pass_sentence(rule, options.scorer),
        started_at=min((r.started_at for r in runs if r.started_at), default=None),
        finished_at=max(
            (moment for _, t in trials if (moment := parse_time(t.get("finished_at")))),
            default=None,
        ),
    )


def _run(
    trial: Path,
    result: Mapping[str, Any],
    index: int,
    rule: PassRule,
    options: ImportOptions,
    invalid: list[str],
) -> ImportedRun:
    status = trial_status(result)
    criteria = _criteria(trial, result, rule, options.scorer)
    info = _mapping(result.get("exception_info"))
    usage = _mapping(result.get("agent_result"))
    started, finished = parse_time(result.get("started_at")), parse_time(result.get("finished_at"))
    return ImportedRun(
        scenario=str(result["task_name"]),
        run_index=index,
        variant=options.variant_name,
        model=_model(result),
        status=status,
        passed=all(c.held for c in criteria) if criteria and _decided(criteria) else None,
        crashed=crashed_flag(status),
        criteria=criteria,
        trajectory=_trajectory(trial, invalid),
        prompt_tokens=_int(usage.get("n_input_tokens")),
        completion_tokens=_int(usage.get("n_output_tokens")),
        cost_usd=_float(usage.get("cost_usd")),
        started_at=started,
        duration_s=(finished - started).total_seconds() if started and finished else None,
        error_type=str(info["exception_type"]) if info.get("exception_type") else None,
        error_message=str(info.get("exception_message") or "") or None,
        source_ref=f"{trial.parent.name}/{trial.name}",
        config_hash=_config_hash(result),
    )


def _criteria(
    trial: Path, result: Mapping[str, Any], rule: PassRule, scorer: str | None
) -> tuple[ImportedCriterion, ...]:
    verifier = result.get("verifier_result")
    rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
    if not isinstance(rewards, dict) or not rewards:
        return ()
    if scorer is not None:
        if scorer not in rewards:
            raise SourceLogError(
                f"--scorer {scorer!r}: the trial has no such reward",
                file=trial / "result.json",
                path="$.verifier_result.rewards",
                hint=f"its rewards are {', '.join(sorted(rewards))}",
            )
        rewards = {scorer: rewards[scorer]}
    return tuple(
        ImportedCriterion(name=str(key), held=rule.holds(value), value=_text(value))
        for key, value in rewards.items()
    )


def _decided(criteria: tuple[ImportedCriterion, ...]) -> bool:
    return all(c.held is not None for c in criteria)


def _trajectory(trial: Path, invalid: list[str]) -> Trajectory | None:
    path = trial / _TRAJECTORY
    if not path.is_file():
        invalid.append(f"{trial.name}: no {_TRAJECTORY.as_posix()}")
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fields outside ATIF are kept, as trajguard reads
            return load_trajectory(path)
    except InvalidTrajectory as exc:
        invalid.append(f"{trial.name}: {exc.message}"[:300])
        return None


def _check_distinct(trials: list[tuple[Path, dict[str, Any]]]) -> None:
    seen: dict[str, Path] = {}
    for trial, result in trials:
        key = str(result.get("id") or trial.resolve())
        if key in seen:
            raise SourceLogError(
                f"trial {result['trial_name']!r} is named twice (also in {seen[key]})",
                file=trial,
                hint="name each job directory once, and not also its trial directories",
            )
        seen[key] = trial


def _suite(trials: list[tuple[Path, dict[str, Any]]]) -> str:
    sources = {str(r["source"]) for _, r in trials if r.get("source")}
    if len(sources) == 1:
        return sources.pop()
    return "harbor"


def _model(result: Mapping[str, Any]) -> str:
    info = result.get("agent_info")
    model = info.get("model_info") if isinstance(info, dict) else None
    if isinstance(model, dict) and model.get("name"):
        provider = model.get("provider")
        return f"{provider}/{model['name']}" if provider else str(model["name"])
    config = result.get("config")
    agent = config.get("agent") if isinstance(config, dict) else None
    name = agent.get("model_name") if isinstance(agent, dict) else None
    return str(name) if name else "unknown"


def _config_hash(result: Mapping[str, Any]) -> str | None:
    """The task's checksum and the agent's definition: equal across attempts of one task."""
    config = result.get("config")
    agent = config.get("agent") if isinstance(config, dict) else None
    if not isinstance(agent, dict) and not result.get("task_checksum"):
        return None
    keys = ("name", "import_path", "model_name", "kwargs")
    defined = {k: agent.get(k) for k in keys} if isinstance(agent, dict) else {}
    text = json.dumps([result.get("task_checksum"), defined], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _lacks(invalid: list[str], unjudged: int, runs: list[ImportedRun]) -> tuple[str, ...]:
    lacks = ["seeds", "git commits"]
    if invalid:
        lacks.append(
            f"a valid ATIF trajectory for {len(invalid)} of {len(runs)} trials "
            f"(first: {invalid[0]})"
        )
    if unjudged:
        lacks.append(f"verifier rewards for {unjudged} trials that ended without an exception")
    if all(r.cost_usd is None for r in runs):
        lacks.append("cost")
    if all(r.prompt_tokens is None and r.completion_tokens is None for r in runs):
        lacks.append("token usage in the trials' agent_result")
    return tuple(lacks)


def _pass_sentence(rule: PassRule, scorer: str | None) -> str:
    which = f"its verifier's reward {scorer!r}" if scorer else "every verifier reward"
    default = (
        " (Harbor's pass@k counts a reward of 1 as a success)"
        if rule.text == (DEFAULT_RULE)
        else ""
    )
    return f"a trial passes when {which} is {rule.text}{default}"


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return str(value)
