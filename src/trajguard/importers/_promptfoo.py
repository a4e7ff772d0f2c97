"""promptfoo results JSON (``promptfoo eval --repeat N -o results.json``) → imported runs.

A results file holds one row per test case, repeat and prompt column (``results.results``);
``--repeat`` does not number its repeats but gives each one its own ``testIdx`` (a test's
repeats are consecutive), so a run's index is its place among the rows of the same test case
and column, in ``testIdx`` order. A test case is a scenario; each prompt-and-provider column
(``promptIdx``, one entry of ``results.prompts``) is one variant, or, with ``--variant``, the
one column imported (so that two columns compare as two run sets). promptfoo's own ``success``
decides ``passed`` unless ``--pass-if`` or ``--scorer`` says otherwise. The mapping, field by
field: ``docs/reference/import-promptfoo.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from trajguard._files import is_safe_name
from trajguard._json import MAX_SOURCE_BYTES, loads_bounded, read_regular_bytes
from trajguard.errors import SourceLogError, UsageError
from trajguard.importers._model import DEFAULT_VARIANT, ImportedBatch, ImportedRun, ImportOptions
from trajguard.importers._pass_rule import parse_pass_rule
from trajguard.importers._promptfoo_runs import Column, Judge, imported_run, scenario_names, slug

__all__ = ["detect", "read"]

_HEAD = re.compile(rb'^\s*\{\s*"evalId"\s*:')
_VERSIONS = (3,)
_REWRITE = "write it again with promptfoo eval -o results.json"


def detect(path: Path) -> bool:
    """``path`` is a promptfoo results JSON file (its first key is ``evalId``)."""
    path = Path(path)
    if not path.is_file() or path.suffix.lower() != ".json":
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(256)
    except OSError:
        return False
    return _HEAD.match(head) is not None


def read(paths: Sequence[Path], options: ImportOptions) -> ImportedBatch:
    """Read promptfoo results files (several files of one config add repeats).

    Raises:
        SourceLogError: a file is not JSON, not a promptfoo results file, or lacks a field.
        UsageError: ``--variant`` names no column of a file of several prompt columns, or
            ``--scorer`` names no assertion of any run.
    """
    judge = Judge(
        rule=parse_pass_rule(options.pass_rule) if options.pass_rule else None,
        scorer=options.scorer,
    )
    runs: list[ImportedRun] = []
    counts: dict[tuple[str, str], int] = {}
    provenance: list[dict[str, Any]] = []
    descriptions: dict[str, str] = {}
    starts: list[datetime] = []
    suite = "promptfoo"
    for path in paths:
        document = _load(path)
        results = document["results"]
        columns = _columns(path, results, options.variant)
        rows = _rows(path, results, len(results["prompts"]))
        names = scenario_names(rows)
        for (index, row), name in zip(rows, names, strict=True):
            column = columns.get(row["promptIdx"])
            if column is None:
                continue  # a column --variant did not choose
            key = (name.scenario, column.variant)
            run_index = counts.get(key, 0)
            counts[key] = run_index + 1
            runs.append(
                imported_run(
                    row,
                    scenario=name.scenario,
                    run_index=run_index,
                    column=column,
                    judge=judge,
                    version=_version(document),
                    ref=f"{path}: $.results.results[{index}]",
                )
            )
            descriptions.setdefault(name.scenario, name.description)
        suite = _suite(document) if len(provenance) == 0 else suite
        start = _timestamp(results.get("timestamp"))
        if start is not None:
            starts.append(start)
        provenance.append(_provenance(document, list(columns.values())))
    if judge.scorer is not None and not any(
        c.name == judge.scorer for run in runs for c in run.criteria
    ):
        names_seen = sorted({c.name for run in runs for c in run.criteria})
        raise UsageError(
            f"--scorer {judge.scorer!r} names no assertion of the promptfoo runs",
            hint=f"the assertions are {', '.join(names_seen) or '(none)'}",
        )
    return ImportedBatch(
        source="promptfoo",
        suite=options.suite or suite,
        runs=tuple(runs),
        files=tuple(str(p) for p in paths),
        provenance={"evals": provenance},
        lacks=_lacks(runs),
        pass_rule=judge.sentence(),
        descriptions=descriptions,
        started_at=min(starts) if starts else None,
    )


def _load(path: Path) -> dict[str, Any]:
    try:
        text = read_regular_bytes(Path(path), max_bytes=MAX_SOURCE_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceLogError(f"cannot read the promptfoo results file: {exc}", file=path) from None
    try:
        document = loads_bounded(text)
    except json.JSONDecodeError as exc:
        raise SourceLogError(
            f"not JSON ({exc.msg}): the file is truncated or not a promptfoo results file",
            file=path,
            line=exc.lineno,
            hint=_REWRITE,
        ) from None
    except ValueError as exc:  # nested too deep, or a number too long to convert
        raise SourceLogError(
            f"not readable JSON: {exc}", file=path, hint=f"if it is a promptfoo file, {_REWRITE}"
        ) from None
    if not isinstance(document, dict) or "evalId" not in document:
        raise SourceLogError(
            "not a promptfoo results file (no evalId at the top)",
            file=path,
            path="$.evalId",
            hint=_REWRITE,
        )
    results = _field(path, document, "results", dict, "$")
    version = results.get("version")
    if version not in _VERSIONS:
        raise SourceLogError(
            f"promptfoo results version {version!r} is not read (trajguard reads version "
            f"{', '.join(map(str, _VERSIONS))}, written by promptfoo 0.60 and later)",
            file=path,
            path="$.results.version",
            hint="run the eval again with a recent promptfoo",
        )
    _field(path, results, "results", list, "$.results")
    _field(path, results, "prompts", list, "$.results")
    return document


def _field(path: Path, mapping: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = mapping.get(key)
    if not isinstance(value, kind):
        what = "missing" if value is None else f"a {type(value).__name__}, not a {kind.__name__}"
        raise SourceLogError(
            f"field {key!r} is {what}", file=path, path=f"{where}.{key}", hint=_REWRITE
        )
    return value


def _columns(path: Path, results: Mapping[str, Any], variant: str | None) -> dict[int, Column]:
    """The columns to import, by ``promptIdx``: every one, or the one ``variant`` names."""
    prompts = results["prompts"]
    columns = []
    for index, prompt in enumerate(prompts):
        where = f"$.results.prompts[{index}]"
        if not isinstance(prompt, dict):
            raise SourceLogError("a prompt column is not an object", file=path, path=where)
        raw = prompt.get("raw")
        label = prompt.get("label")
        provider = prompt.get("provider")
        columns.append(
            Column(
                index=index,
                variant=variant or DEFAULT_VARIANT,
                template=raw if isinstance(raw, str) else "",
                label=label if isinstance(label, str) else "",
                provider=provider if isinstance(provider, str) else "",
                metrics=metrics if isinstance(metrics := prompt.get("metrics"), dict) else {},
                of=len(prompts),
            )
        )
    if len(columns) <= 1:
        return {c.index: c for c in columns}
    columns = _named_columns(columns)
    if variant is None:
        return {c.index: c for c in columns}
    chosen = {c.index: c for c in columns if c.variant == variant}
    if not chosen:
        raise UsageError(
            f"--variant {variant!r}: {path} holds {len(columns)} prompt columns, none of them "
            f"{variant!r}",
            hint=f"its columns are {', '.join(c.variant for c in columns)}: name one to import "
            "it alone (e.g. to compare two columns as two run sets), or leave out --variant to "
            "import each as a variant of its own",
        )
    return chosen


def _named_columns(columns: list[Column]) -> list[Column]:
    """Several prompt columns: each a variant, named by its prompt's label when that is a
    unique name, else by label and provider (``plain-openai-chat-smollm2``) when those are,
    else ``p<promptIdx>``."""
    labels = [c.label for c in columns]
    pairs = [slug(f"{c.label}-{c.provider}") for c in columns]
    named = []
    for column, pair in zip(columns, pairs, strict=True):
        if is_safe_name(column.label) and labels.count(column.label) == 1:
            name = column.label
        elif is_safe_name(pair) and pairs.count(pair) == 1:
            name = pair
        else:
            name = f"p{column.index}"
        named.append(replace(column, variant=name))
    return named


def _rows(path: Path, results: Mapping[str, Any], columns: int) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for index, row in enumerate(results["results"]):
        where = f"$.results.results[{index}]"
        if not isinstance(row, dict):
            raise SourceLogError("a result row is not an object", file=path, path=where)
        for key, kind in (
            ("testIdx", "an integer"),
            ("promptIdx", "an integer"),
            ("success", "a boolean"),
        ):
            value = row.get(key)
            fits = isinstance(value, bool) == (kind == "a boolean") and isinstance(value, int)
            if not fits:
                what = "missing" if value is None else f"{json.dumps(value)[:40]}, not {kind}"
                raise SourceLogError(
                    f"field {key!r} is {what}", file=path, path=f"{where}.{key}", hint=_REWRITE
                )
        if not 0 <= row["promptIdx"] < columns:
            raise SourceLogError(
                f"promptIdx {row['promptIdx']} names no entry of $.results.prompts "
                f"({columns} prompts)",
                file=path,
                path=f"{where}.promptIdx",
                hint=_REWRITE,
            )
        rows.append((index, row))
    return sorted(rows, key=lambda item: (item[1]["testIdx"], item[1]["promptIdx"]))


def _suite(document: Mapping[str, Any]) -> str:
    config = document.get("config")
    description = config.get("description") if isinstance(config, dict) else None
    return description if isinstance(description, str) and description.strip() else "promptfoo"


def _version(document: Mapping[str, Any]) -> str:
    metadata = document.get("metadata")
    version = metadata.get("promptfooVersion") if isinstance(metadata, dict) else None
    return version if isinstance(version, str) else "unknown"


def _timestamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _provenance(document: Mapping[str, Any], columns: Sequence[Column]) -> dict[str, Any]:
    results = document["results"]
    runtime = document.get("runtimeOptions")
    stats = results.get("stats")
    return {
        "eval_id": str(document.get("evalId")),
        "promptfoo_version": _version(document),
        "timestamp": results.get("timestamp"),
        "repeat": runtime.get("repeat") if isinstance(runtime, dict) else None,
        "stats": {
            k: stats.get(k)
            for k in ("successes", "failures", "errors", "durationMs")
            if isinstance(stats, dict)
        },
        "prompt_columns": columns[0].of if columns else 0,
        "columns": [
            {
                "variant": c.variant,
                "prompt": c.label,
                "provider": c.provider,
                "test_pass_count": c.metrics.get("testPassCount"),
                "test_fail_count": c.metrics.get("testFailCount"),
                "test_error_count": c.metrics.get("testErrorCount"),
            }
            for c in columns
        ],
    }


def _lacks(runs: Sequence[ImportedRun]) -> tuple[str, ...]:
    lacks = ["per-run start times", "tool results (each run is one model call)", "seeds"]
    if all(r.prompt_tokens is None and r.completion_tokens is None for r in runs):
        has_metrics = any(
            step.metrics is not None
            for r in runs
            if r.trajectory is not None
            for step in r.trajectory.steps
        )
        if not has_metrics:
            lacks.append("token usage")
    if all(r.cost_usd is None for r in runs):
        lacks.append("costs")
    return tuple(lacks)
