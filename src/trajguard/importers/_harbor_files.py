"""Reading a Harbor job directory's files: which subdirectories are trials, their results."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from trajguard._json import (
    MAX_SOURCE_BYTES,
    FileKindError,
    JSONLimitError,
    loads_bounded,
    read_regular_bytes,
)
from trajguard.errors import SourceLogError

__all__ = ["head", "job_provenance", "read_json", "trial_dirs", "trial_result"]


def trial_dirs(job: Path) -> list[Path]:
    """The job's trial directories: each with a ``result.json`` of any kind (one that is no
    regular file is refused when read, never passed over)."""
    if not (job / "config.json").is_file() or not (job / "result.json").is_file():
        return []
    return sorted(
        child
        for child in job.iterdir()
        if child.is_dir() and "__" in child.name and os.path.lexists(child / "result.json")
    )


def trial_result(trial: Path) -> dict[str, Any]:
    file = trial / "result.json"
    document = read_json(file)
    for field in ("task_name", "trial_name", "agent_info"):
        if field not in document:
            raise SourceLogError(
                f"the trial's result.json has no {field!r}",
                file=file,
                path=f"$.{field}",
                hint="import a trial that Harbor finished (its result.json is written at the end)",
            )
    if not isinstance(document["task_name"], str) or not document["task_name"]:
        raise SourceLogError("task_name is not a name", file=file, path="$.task_name")
    return document


def job_provenance(job: Path) -> dict[str, Any]:
    config, result = read_json(job / "config.json"), read_json(job / "result.json")
    listed = config.get("agents")
    agents: list[Any] = listed if isinstance(listed, list) else []
    return {
        "job_name": config.get("job_name", job.name),
        "job_id": result.get("id"),
        "n_attempts": config.get("n_attempts"),
        "n_total_trials": result.get("n_total_trials"),
        "agents": [
            {k: a.get(k) for k in ("name", "import_path", "model_name", "kwargs")}
            for a in agents
            if isinstance(a, dict)
        ],
        "harbor_version": _harbor_version(job),
        "reward_mean": _reward_mean(result),
    }


def _reward_mean(result: dict[str, Any]) -> float | None:
    """Harbor's own headline: the mean reward of the job's one eval (``None`` otherwise)."""
    stats = result.get("stats")
    evals = stats.get("evals") if isinstance(stats, dict) else None
    if not isinstance(evals, dict) or len(evals) != 1:
        return None
    (only,) = evals.values()
    metrics = only.get("metrics") if isinstance(only, dict) else None
    first = metrics[0] if isinstance(metrics, list) and metrics else None
    mean = first.get("mean") if isinstance(first, dict) else None
    return float(mean) if isinstance(mean, int | float) and not isinstance(mean, bool) else None


def _harbor_version(job: Path) -> str | None:
    lock = job / "lock.json"
    if not lock.is_file():
        return None
    try:
        harbor = read_json(lock).get("harbor") or {}
    except (SourceLogError, AttributeError):
        return None
    return str(harbor.get("version")) if isinstance(harbor, dict) and "version" in harbor else None


def read_json(file: Path) -> dict[str, Any]:
    """The JSON object in ``file``, read within the limits (a regular file; size and depth).

    Raises:
        SourceLogError: unreadable, over a limit, not JSON, or not an object.
    """
    try:
        document = loads_bounded(read_regular_bytes(file, max_bytes=MAX_SOURCE_BYTES))
    except FileKindError as exc:
        raise SourceLogError(
            str(exc).replace(str(file), "the file"),
            file=file,
            hint="a trial's files are regular files Harbor wrote; replace it with one"
            if "regular" in str(exc)
            else "raise the limit as the message says, if the file is genuine",
        ) from None
    except OSError as exc:
        raise SourceLogError(f"cannot read: {exc.strerror or exc}", file=file) from None
    except JSONLimitError as exc:
        raise SourceLogError(f"the file is {exc}", file=file) from None
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise SourceLogError(
            f"not JSON ({exc})",
            file=file,
            line=line,
            hint="the file is truncated or was not written by Harbor",
        ) from None
    if not isinstance(document, dict):
        raise SourceLogError("not a JSON object", file=file, path="$")
    return document


def head(file: Path) -> str:
    try:
        with file.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(4096)
    except OSError:
        return ""
