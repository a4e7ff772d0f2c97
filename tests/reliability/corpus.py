"""The bad-input corpus: cases, and the files each case needs, made in a scratch directory.

A case is an entry of ``cases.yaml``: an argv for ``trajguard``, the files to create first, the
exit code it must end with and fragments its stderr must contain. A file's content is given as
``text``, as ``repeat`` (a chunk repeated N times, for huge or deep inputs), as ``hex`` (raw
bytes), as ``copy`` (a file of this repository) or as ``runset`` (a run set written with
trajguard's store, with the given defects). Used by ``test_corpus.py`` (in-process) and by
``benchmarks/reliability_corpus.py`` (as subprocesses, against any checkout).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
CASES_FILE = Path(__file__).with_name("cases.yaml")


@dataclass(frozen=True, kw_only=True)
class Case:
    """One bad input and what trajguard must answer."""

    id: str
    argv: tuple[str, ...]
    files: dict[str, Any] = field(default_factory=dict)
    exit: int = 2
    stderr: tuple[str, ...] = ()
    stdout: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    """Paths (relative to the scratch directory) that must not exist afterwards."""
    env: dict[str, str] = field(default_factory=dict)


def load_cases() -> list[Case]:
    data = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
    cases = []
    for entry in data:
        cases.append(
            Case(
                id=entry["id"],
                argv=tuple(str(a) for a in entry["argv"]),
                files=dict(entry.get("files") or {}),
                exit=int(entry.get("exit", 2)),
                stderr=tuple(_list(entry.get("stderr"))),
                stdout=tuple(_list(entry.get("stdout"))),
                absent=tuple(_list(entry.get("absent"))),
                env={str(k): str(v) for k, v in (entry.get("env") or {}).items()},
            )
        )
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(value)] if isinstance(value, str) else [str(v) for v in value]


def materialise(case: Case, root: Path) -> None:
    """Create the case's files under ``root``."""
    for name, spec in case.files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, str):
            path.write_text(spec, encoding="utf-8")
        elif "text" in spec:
            path.write_text(spec["text"], encoding="utf-8")
        elif "repeat" in spec:
            chunk, times = spec["repeat"]
            path.write_text(
                spec.get("prefix", "") + str(chunk) * int(times) + spec.get("suffix", ""),
                encoding="utf-8",
            )
        elif "hex" in spec:
            path.write_bytes(bytes.fromhex(spec["hex"]))
        elif "copy" in spec:
            source = REPO / spec["copy"]
            if source.is_dir():
                shutil.copytree(source, path)
            else:
                shutil.copyfile(source, path)
        elif "dir" in spec:
            path.mkdir(parents=True, exist_ok=True)
        elif "runset" in spec:
            write_runset(path, **spec["runset"])
        else:
            raise ValueError(f"case {case.id}: no content for {name}")


def _row(suite: str, scenario: str, index: int, **changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": f"{scenario}/base/{index}",
        "batch_id": "b",
        "suite": suite,
        "scenario": scenario,
        "variant": "base",
        "run_index": index,
        "model": "local/smollm2",
        "seed": index,
        "started_at": datetime(2026, 12, 1, tzinfo=UTC),
        "duration_s": 1.0,
        "status": "ok",
        "passed": index % 2 == 0,
        "crashed": False,
        "step_count": 3,
        "tool_sequence": ["calculator"],
        "tool_counts": {"calculator": 1},
        "prompt_tokens": 100,
        "completion_tokens": 10,
        "total_tokens": 110,
        "final_output": "391",
        "trajectory": "{}",
        "config_hash": "abc",
        "git_sha": "f00",
    }
    row.update(changes)
    return row


def write_runset(
    path: Path,
    *,
    suite: str = "demo",
    rows: int = 6,
    scenarios: tuple[str, ...] = ("s",),
    manifest: Any = None,
    manifest_text: str | None = None,
    status: str = "finished",
    variants: tuple[str, ...] = ("base",),
    row_changes: dict[str, Any] | None = None,
    parquet_text: str | None = None,
    stray: tuple[str, ...] = (),
    drop_columns: tuple[str, ...] = (),
    schema_version: str | None = None,
) -> None:
    """A run set as ``trajguard run`` writes it, with the defects a case asks for."""
    from trajguard import store

    path.mkdir(parents=True, exist_ok=True)
    built = [
        _row(suite, scenario, index, variant=variant, **(row_changes or {}))
        for scenario in scenarios
        for variant in variants
        for index in range(rows)
    ]
    for row in built:
        row["run_id"] = f"{row['scenario']}/{row['variant']}/{row['run_index']}"
    if parquet_text is not None:
        (path / store.RUNS_FILE).write_text(parquet_text, encoding="utf-8")
    elif built and (drop_columns or schema_version is not None):
        import pyarrow.parquet as pq

        table = store.rows_to_table(built).drop_columns(list(drop_columns))
        if schema_version is not None:
            metadata = {b"trajguard.store_schema_version": schema_version.encode()}
            table = table.replace_schema_metadata(metadata)
        pq.write_table(table, path / store.RUNS_FILE)
    elif built:
        store.write_runs(path / store.RUNS_FILE, built)
    if manifest_text is not None:
        (path / store.MANIFEST_FILE).write_text(manifest_text, encoding="utf-8")
    else:
        document = manifest if manifest is not None else {}
        if isinstance(document, dict):
            document = {
                "suite": suite,
                "status": status,
                "models": ["local/smollm2"],
                "config_hashes": {f"{s}/{v}": "abc" for s in scenarios for v in variants},
                **document,
            }
        (path / store.MANIFEST_FILE).write_text(json.dumps(document), encoding="utf-8")
    for name in stray:
        (path / name).write_text("", encoding="utf-8")
