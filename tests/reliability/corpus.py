"""The bad-input corpus: cases, and the files each case needs, made in a scratch directory.

A case is an entry of ``cases.yaml``: an argv for ``trajguard``, the files to create first, the
exit code it must end with and fragments its stderr must contain. A file's content is given as
``text``, as ``repeat`` (a chunk repeated N times, for huge or deep inputs), as ``hex`` (raw
bytes), as ``copy`` (a file of this repository), as ``runset`` (a run set written with
trajguard's store, with the given defects), as ``fifo`` (a named pipe: a reader that opens it
blocks), as ``symlink`` (to the given target) or as ``eval_zip`` (a hostile Inspect ``.eval``
log: ``tests/support/trajguard_testkit/hostile_zip.py``). A case may also need the fault-injecting
provider stub (``provider``: its script and its answer; ``{api_base}`` in the argv is its
address), must run as a subprocess (``subprocess``: it would hang an in-process test if it
regressed), and may require that no control character reach its output (``clean_text``: stdout,
stderr and the files listed). Used by ``test_corpus.py`` (in-process, or as a subprocess with a
deadline) and by ``benchmarks/reliability_corpus.py`` (as subprocesses, against any checkout).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from collections.abc import Iterator
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
    subprocess: bool = False
    """Run as a subprocess with a deadline (a regression would hang the test's own process)."""
    provider: dict[str, Any] | None = None
    """The provider stub's ``script`` (faults, in order) and ``reply`` (its answer's text)."""
    file_has: dict[str, str] = field(default_factory=dict)
    """Files written by the case and a fragment each must contain."""
    clean_text: tuple[str, ...] | None = None
    """Files (besides stdout and stderr) that must hold no control character; ``None``: no
    check."""
    runner: str = "trajguard"
    """``trajguard`` (``python -m trajguard.cli ARGV``) or ``pytest`` (``python -m pytest
    ARGV``: frozen mode's cassettes and golden files are read by the pytest plugin; always a
    subprocess)."""


CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""The control characters no output of a ``clean_text`` case may hold (newline and tab may)."""


def control_characters(text: str) -> list[str]:
    """The control characters in ``text``, as escapes (``['\\x1b']``)."""
    return sorted({repr(match.group())[1:-1] for match in CONTROL.finditer(text)})


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
                subprocess=bool(entry.get("subprocess", False)),
                file_has={str(k): str(v) for k, v in (entry.get("file_has") or {}).items()},
                provider=entry.get("provider"),
                clean_text=None
                if entry.get("clean_text") is None
                else tuple(_list(entry["clean_text"] or [])),
                runner=str(entry.get("runner", "trajguard")),
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
        elif "sparse" in spec:  # a file of that size taking no disk: for size limits
            with path.open("wb") as sparse:
                sparse.truncate(int(spec["sparse"]))
        elif "fifo" in spec:
            path.unlink(missing_ok=True)
            os.mkfifo(path)
        elif "symlink" in spec:
            path.unlink(missing_ok=True)
            path.symlink_to(spec["symlink"])
        elif "runset" in spec:
            write_runset(path, **spec["runset"])
        elif "eval_zip" in spec:
            _testkit("hostile_zip").hostile_eval(path, **spec["eval_zip"])
        else:
            raise ValueError(f"case {case.id}: no content for {name}")


def _testkit(name: str) -> Any:
    """A module of tests/support/trajguard_testkit, loaded by path (the benchmark runs this
    file without the tests' import path)."""
    import importlib.util
    import sys

    qualified = f"trajguard_testkit_{name}"
    if qualified not in sys.modules:
        file = REPO / "tests" / "support" / "trajguard_testkit" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(qualified, file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module
        spec.loader.exec_module(module)
    return sys.modules[qualified]


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
    many_rows: int | None = None,
) -> None:
    """A run set as ``trajguard run`` writes it, with the defects a case asks for."""
    from trajguard import store

    path.mkdir(parents=True, exist_ok=True)
    row_changes = {  # {repeat: [chunk, n]}: a long value (a trajectory 200,000 levels deep)
        key: str(value["repeat"][0]) * int(value["repeat"][1])
        if isinstance(value, dict) and set(value) == {"repeat"}
        else value
        for key, value in (row_changes or {}).items()
    }
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
    elif many_rows is not None:  # the first row repeated: a small file of many rows
        import pyarrow.parquet as pq

        table = store.rows_to_table(built[:1])
        pq.write_table(table.take([0] * many_rows), path / store.RUNS_FILE)
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


RUNNERS = {
    "trajguard": ["-m", "trajguard.cli"],
    "pytest": ["-m", "pytest", "-p", "no:cacheprovider", "-q"],
}
"""What follows the Python in a case's command line, by its ``runner``."""


def command_for(case: Case, python: str, api_base: str | None) -> list[str]:
    """The whole command line of a case: ``python``, its runner, its argv."""
    return [python, *RUNNERS[case.runner], *argv_for(case, api_base)]


def argv_for(case: Case, api_base: str | None) -> list[str]:
    """The case's argv with ``{api_base}`` replaced by the provider stub's address."""
    return [a.replace("{api_base}", api_base or "") for a in case.argv]


@contextlib.contextmanager
def provider_for(case: Case, stub: Any) -> Iterator[str | None]:
    """The provider stub a case asks for, scripted (``stub``: the module provider_stub.py)."""
    if case.provider is None:
        yield None
        return
    with stub.faulty_provider() as state:
        state.answer = stub.completion(str(case.provider.get("reply", "ok")))
        state.then(*(stub.Fault(**fault) for fault in case.provider.get("script") or ()))
        yield state.api_base


def unclean_outputs(case: Case, root: Path, stdout: str, stderr: str) -> list[str]:
    """Where a ``clean_text`` case's output holds control characters (empty: nowhere)."""
    if case.clean_text is None:
        return []
    texts = {"stdout": stdout, "stderr": stderr}
    for name in case.clean_text:
        texts[name] = (root / name).read_text(encoding="utf-8", errors="replace")
    return [
        f"{where}: {found}" for where, text in texts.items() if (found := control_characters(text))
    ]
