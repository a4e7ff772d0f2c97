"""Inspect AI eval logs (``.eval``, ``.json``) → imported runs: one per sample x epoch.

Read through Inspect's own reader when ``inspect_ai`` is installed, else by the documented
format (:mod:`._inspect_files`); ``TRAJGUARD_INSPECT_READER=builtin`` (or ``inspect``) picks
one. Both give the same runs. The mapping, field by field: ``docs/reference/import-inspect.md``.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from trajguard.atif import Agent
from trajguard.errors import SourceLogError, UsageError
from trajguard.importers import _inspect_files, _inspect_native
from trajguard.importers._inspect_log import InspectLog, plain
from trajguard.importers._inspect_map import LogContext, sample_run
from trajguard.importers._inspect_scores import DEFAULT_RULE, criterion_names
from trajguard.importers._model import ImportedBatch, ImportedRun, ImportOptions
from trajguard.importers._pass_rule import parse_pass_rule

__all__ = ["READER_ENV", "detect", "read"]

READER_ENV = "TRAJGUARD_INSPECT_READER"
_READERS = ("inspect", "builtin")
_DESCRIPTION_CHARS = 160
# An Inspect .json log opens with its version and eval spec (Inspect writes them first).
_JSON_KEYS = (re.compile(rb'"version"\s*:\s*\d'), re.compile(rb'"eval"\s*:\s*\{'))


def detect(path: Path) -> bool:
    """An ``.eval`` zip with a header or journal, a ``.json`` log, or a folder holding one."""
    path = Path(path)
    if path.is_dir():
        return any(_is_log(p) for p in sorted(path.iterdir()))
    return _is_log(path)


def read(
    paths: Sequence[Path], options: ImportOptions, *, reader: str | None = None
) -> ImportedBatch:
    """Every run of the logs at ``paths`` (files, or folders of logs).

    Raises:
        SourceLogError: a log cannot be read, or is not an Inspect log.
        UsageError: ``--scorer`` names no scorer of the logs, or a bad ``--pass-if`` or reader.
    """
    chosen = _reader(reader)
    rule = parse_pass_rule(options.pass_rule) if options.pass_rule else None
    files = [file for path in paths for file in _files(Path(path))]
    logs = [_open(chosen, file) for file in files]
    tasks = sorted({str(log.header["eval"]["task"]) for log in logs})
    runs: list[ImportedRun] = []
    scorers: set[str] = set()
    descriptions: dict[str, str] = {}
    for log in logs:
        context = _context(log, options, rule, qualify=len(tasks) > 1)
        order = _order(log.header)
        keyed = []
        for where, sample in log.samples():
            scorers.update(criterion_names(sample.get("scores") or {}))
            run = sample_run(sample, where, context)
            descriptions.setdefault(run.scenario, _describe(sample.get("input")))
            keyed.append(
                ((order.get(str(sample.get("id")), len(order)), run.scenario, run.run_index), run)
            )
        runs.extend(run for _, run in sorted(keyed, key=lambda item: item[0]))
    if options.scorer is not None and options.scorer not in scorers:
        raise UsageError(
            f"--scorer {options.scorer!r}: the logs have no such scorer",
            hint=f"their scorers are {', '.join(sorted(scorers)) or '(none)'}",
        )
    return ImportedBatch(
        source="inspect",
        suite=options.suite or "+".join(tasks),
        runs=tuple(runs),
        files=tuple(str(file) for file in files),
        provenance=_provenance(logs, chosen),
        lacks=_lacks(runs),
        pass_rule=_rule_text(options, rule is not None),
        descriptions={k: v for k, v in descriptions.items() if v},
        started_at=_edge(logs, "started_at", min),
        finished_at=_edge(logs, "completed_at", max),
    )


def _reader(reader: str | None) -> str:
    chosen = reader or os.environ.get(READER_ENV) or ""
    if chosen and chosen not in _READERS:
        raise UsageError(
            f"{READER_ENV}={chosen!r} is not a reader", hint=f"use one of {', '.join(_READERS)}"
        )
    if not chosen:
        return "inspect" if _inspect_native.available() else "builtin"
    if chosen == "inspect" and not _inspect_native.available():
        raise UsageError(
            f"{READER_ENV}=inspect, but Inspect is not installed",
            hint="pip install inspect-ai, or unset it to read logs with the built-in reader",
        )
    return chosen


def _open(reader: str, file: Path) -> InspectLog:
    if reader == "inspect":
        return _inspect_native.open_log(file)
    return _inspect_files.open_log(file)


def _files(path: Path) -> list[Path]:
    if not path.is_dir():
        if path.exists() and not path.is_file():  # a FIFO would block; a device never ends
            raise SourceLogError(
                "the log is not a regular file (a FIFO, a device or a socket)",
                file=path,
                hint="name the .eval or .json file `inspect eval` wrote",
            )
        if not _is_log(path):
            raise SourceLogError(
                "not an Inspect log (an .eval zip or a .json log with an eval spec)",
                file=path,
                hint="name the .eval or .json file `inspect eval` wrote, or its log folder",
            )
        return [path]
    found = [p for p in sorted(path.iterdir()) if _is_log(p)]
    if not found:
        raise SourceLogError(
            "the folder holds no Inspect log (.eval or .json)", file=path, hint="name a log file"
        )
    return found


def _is_log(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        if path.suffix == ".eval":
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
            return "header.json" in names or "_journal/start.json" in names
        if path.suffix == ".json":
            with path.open("rb") as handle:
                head = handle.read(4096)
            return head.lstrip().startswith(b"{") and all(k.search(head) for k in _JSON_KEYS)
    except (OSError, zipfile.BadZipFile):
        return path.suffix == ".eval"  # a damaged .eval: read() says what is wrong
    return False


def _context(log: InspectLog, options: ImportOptions, rule: Any, *, qualify: bool) -> LogContext:
    spec = log.header["eval"]
    plan = log.header.get("plan") or {}
    packages = spec.get("packages") or {}
    definition = plain(
        {
            "task": spec.get("task"),
            "task_version": spec.get("task_version"),
            "task_args": spec.get("task_args"),
            "solver": spec.get("solver"),
            "solver_args": spec.get("solver_args"),
            "plan": [
                {"solver": step.get("solver"), "params": step.get("params")}
                for step in plan.get("steps") or []
                if isinstance(step, Mapping)
            ],
            "generate_config": plan.get("config"),
            "model": spec.get("model"),
        }
    )
    return LogContext(
        file=log.file,
        task=str(spec["task"]),
        model=str(spec["model"]),
        definition=definition,
        agent=Agent(
            name=f"inspect:{spec['task']}",
            version=str(packages.get("inspect_ai") or "unknown"),
            model_name=str(spec["model"]),
        ),
        variant=options.variant_name,
        rule=rule,
        scorer=options.scorer,
        qualify=qualify,
    )


def _order(header: Mapping[str, Any]) -> dict[str, int]:
    ids = ((header.get("eval") or {}).get("dataset") or {}).get("sample_ids") or []
    return {str(sample_id): index for index, sample_id in enumerate(ids)}


def _describe(value: Any) -> str:
    if isinstance(value, list):
        texts = [m.get("content") for m in value if isinstance(m, Mapping)]
        value = next((t for t in reversed(texts) if isinstance(t, str)), "")
    text = " ".join(str(value or "").split())
    return text if len(text) <= _DESCRIPTION_CHARS else text[: _DESCRIPTION_CHARS - 1] + "…"


def _provenance(logs: Sequence[InspectLog], reader: str) -> dict[str, Any]:
    return {
        "reader": "inspect_ai.log" if reader == "inspect" else "built-in",
        "logs": [dict(_log_provenance(log)) for log in logs],
    }


def _log_provenance(log: InspectLog) -> Iterator[tuple[str, Any]]:
    spec = log.header["eval"]
    yield "file", log.file.name
    yield "status", log.header.get("status")
    yield "log_version", log.header.get("version")
    yield "inspect_ai", (spec.get("packages") or {}).get("inspect_ai")
    for key in ("task", "task_version", "task_args", "model", "eval_id", "run_id", "created"):
        yield key, spec.get(key)
    yield "epochs", (spec.get("config") or {}).get("epochs")
    results = log.header.get("results") or {}
    yield (
        "scores",
        {
            _score_name(score): {
                str(name): metric.get("value")
                for name, metric in (score.get("metrics") or {}).items()
            }
            for score in results.get("scores") or []
            if isinstance(score, Mapping)
        },
    )


def _score_name(score: Mapping[str, Any]) -> str:
    """A metric's scorer as the criteria name it: ``<scorer>/<key>`` for a key of a dict
    scorer (Inspect names that score after the key), else the scorer's name."""
    name, scorer = str(score.get("name")), score.get("scorer")
    return name if not isinstance(scorer, str) or scorer in ("", name) else f"{scorer}/{name}"


def _lacks(runs: Sequence[ImportedRun]) -> tuple[str, ...]:
    lacks: list[str] = []
    checks: tuple[tuple[str, Callable[[ImportedRun], bool]], ...] = (
        ("trajectories", lambda r: r.trajectory is None),
        ("token usage", lambda r: r.prompt_tokens is None),
        ("timings", lambda r: r.started_at is None),
        ("cost", lambda r: r.cost_usd is None),
        ("scores", lambda r: not r.criteria),
    )
    for what, missing in checks:
        count = sum(1 for run in runs if missing(run))
        if count:
            lacks.append(what if count == len(runs) else f"{what} ({count} of {len(runs)} runs)")
    return tuple(lacks)


def _rule_text(options: ImportOptions, custom: bool) -> str:
    rule = (
        f"a sample passes when every scorer's value passes {options.pass_rule!r}"
        if custom
        else DEFAULT_RULE
    )
    if options.scorer is None:
        return rule
    return rule.replace("every scorer's value", f"the value of scorer {options.scorer!r}", 1)


def _edge(logs: Sequence[InspectLog], field: str, pick: Any) -> datetime | None:
    times = []
    for log in logs:
        value = (log.header.get("stats") or {}).get(field)
        if isinstance(value, str) and value:
            try:
                times.append(datetime.fromisoformat(value))
            except ValueError:
                continue
    return pick(times) if times else None
