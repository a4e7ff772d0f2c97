"""Benchmark: the Parquet run store, written and read the way trajguard uses it.

Run: python benchmarks/bench_store.py [--rows 100000] [--parts 2000] [--repeat 3]

Three figures, each the median wall time over ``--repeat`` runs (spread in brackets):

* ``write_runs`` of ``--rows`` realistic rows (Python dicts -> explicit-schema Arrow table ->
  zstd Parquet, temp file + rename), then ``read_runs`` of the run set back into pandas (and
  ``read_table``, the Arrow part of it);
* the runner's path for a smaller batch: ``--parts`` runs each written as its own part file
  (``write_run``), then ``compact`` merging them into ``runs.parquet``.

Rows look like live-mode rows: a few scenarios and variants, tool sequences of 0 to 8 calls from a
handful of tools with their counts map, token counts, an error on a few runs, a final answer, and
a normalised trajectory as compact JSON of about 1 to 2 KB (agent header with tool definitions,
system and user steps, one agent step per tool call with its observation, a final answer), with
model text that differs run to run so it does not compress unrealistically well.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from trajguard import __version__, store

TOOLS = {
    "calculator": ("Evaluate an arithmetic expression such as 17 * 23.", "expression"),
    "lookup_country": ("Look up a country's capital, population and currency.", "country"),
    "get_weather": ("Get today's weather for a city.", "city"),
    "search": ("Search the bundled notes for a phrase.", "query"),
    "read_file": ("Read a text file from the workspace.", "path"),
}
SCENARIOS = ["multiply", "capital", "population_per_thousand", "greeting", "weather", "search"]
VARIANTS = ["base", "terse"]
WORDS = (  # noqa: SIM905
    "the answer is population capital result value tool call weather city number total "
    "france paris canberra tokyo seventeen times twenty three divided thousand hello maria"
).split()


def _definitions(tools: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOLS[name][0],
                "parameters": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {TOOLS[name][1]: {"type": "string"}},
                    "required": [TOOLS[name][1]],
                },
            },
        }
        for name in tools
    ]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)) + f" {rng.randint(0, 10**6)}"


def _trajectory(rng: random.Random, scenario: str, sequence: list[str], final: str) -> str:
    tools = sorted(TOOLS)[: 2 + SCENARIOS.index(scenario) % 2]
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "system", "message": f"You are a helpful assistant. {scenario}"},
        {"step_id": 2, "source": "user", "message": _text(rng, 8) + "?"},
    ]
    prompt = 120
    for index, name in enumerate(sequence, start=1):
        prompt += rng.randint(30, 60)
        steps.append(
            {
                "step_id": len(steps) + 1,
                "source": "agent",
                "model_name": "local/smollm2",
                "message": "",
                "llm_call_count": 1,
                "tool_calls": [
                    {
                        "tool_call_id": f"call_{index}",
                        "function_name": name,
                        "arguments": {TOOLS[name][1]: _text(rng, 1)},
                    }
                ],
                "observation": {
                    "results": [{"source_call_id": f"call_{index}", "content": _text(rng, 4)}]
                },
                "metrics": {"prompt_tokens": prompt, "completion_tokens": rng.randint(10, 40)},
            }
        )
    steps.append(
        {
            "step_id": len(steps) + 1,
            "source": "agent",
            "model_name": "local/smollm2",
            "message": final,
            "llm_call_count": 1,
            "metrics": {"prompt_tokens": prompt + 40, "completion_tokens": rng.randint(5, 60)},
        }
    )
    return json.dumps(
        {
            "agent": {
                "name": "trajguard-reference-agent",
                "version": __version__,
                "model_name": "local/smollm2",
                "extra": {"mode": "json", "max_steps": 6, "tool_budget": 2},
                "tool_definitions": _definitions(tools),
            },
            "schema_version": "ATIF-v1.7",
            "steps": steps,
        },
        sort_keys=True,
        separators=(",", ":"),
    )


def make_rows(count: int, *, seed: int = 7, batch_id: str = "bench") -> list[dict[str, Any]]:
    """``count`` realistic run rows (dicts in :data:`store.RUN_SCHEMA`'s columns)."""
    rng = random.Random(seed)
    start = datetime(2026, 11, 29, 2, 0, tzinfo=UTC)
    rows = []
    arms = [(s, v) for s in SCENARIOS for v in VARIANTS]
    for index in range(count):
        scenario, variant = arms[index % len(arms)]
        run_index = index // len(arms)
        sequence = [rng.choice(list(TOOLS)) for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3, 6]))]
        status = rng.choices(["ok", "agent_error", "timeout", "harness_error"], [90, 7, 2, 1])[0]
        final = _text(rng, rng.randint(4, 30))
        trajectory = _trajectory(rng, scenario, sequence, final)
        prompt = rng.randint(150, 1500)
        completion = rng.randint(20, 300)
        failed = [] if rng.random() < 0.6 else ["final_output_contains: does not contain '391'"]
        rows.append(
            {
                "run_id": f"{scenario}/{variant}/{run_index}",
                "batch_id": batch_id,
                "suite": "demo",
                "scenario": scenario,
                "variant": variant,
                "run_index": run_index,
                "model": "local/smollm2",
                "seed": rng.getrandbits(31),
                "started_at": start + timedelta(seconds=index * 0.5),
                "duration_s": rng.uniform(0.3, 20.0),
                "git_sha": "0123456789abcdef0123456789abcdef01234567",
                "config_hash": hashlib.sha256(f"{scenario}/{variant}".encode()).hexdigest()[:16],
                "trajguard_version": __version__,
                "atif_schema_version": "ATIF-v1.7",
                "status": status,
                "error_type": None if status == "ok" else "max_steps",
                "error_message": None if status == "ok" else "no final answer after 6 calls",
                "passed": None if status in ("timeout", "harness_error") else not failed,
                "failed_criteria": failed,
                "crashed": status == "agent_error" and rng.random() < 0.3,
                "step_count": len(sequence) + 3,
                "agent_steps": len(sequence) + 1,
                "llm_calls": len(sequence) + 1,
                "tool_call_count": len(sequence),
                "tool_sequence": sequence,
                "tool_counts": dict(Counter(sequence)),
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "cost_usd": None,
                "subagent_count": 0,
                "content_hash": f"{rng.getrandbits(64):016x}",
                "final_output": final,
                "trajectory": trajectory,
            }
        )
    return rows


def timed(
    action: Callable[[], Any], repeat: int, reset: Callable[[], None] | None = None
) -> list[float]:
    times = []
    for _ in range(repeat):
        if reset is not None:
            reset()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return times


def report(label: str, times: list[float], rows: int) -> None:
    median = statistics.median(times)
    print(
        f"{label:<34} median {median:8.3f} s  [{min(times):.3f}-{max(times):.3f}]  "
        f"{rows / median:>11,.0f} rows/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--parts", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    rows = make_rows(args.rows)
    built = time.perf_counter() - start
    text_bytes = sum(len(r["trajectory"].encode()) for r in rows)
    print(
        f"{args.rows:,} rows built in {built:.1f} s; trajectory JSON mean "
        f"{text_bytes / args.rows:,.0f} B/row ({text_bytes / 2**20:,.1f} MiB raw)"
    )

    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        runset = Path(tmp) / "runset"
        target = runset / store.RUNS_FILE
        write = timed(lambda: store.write_runs(target, rows), args.repeat)
        size = target.stat().st_size
        report(f"write_runs ({args.rows:,} rows)", write, args.rows)
        frame_holder: list[Any] = []
        read = timed(lambda: frame_holder.append(store.read_runs(runset)), args.repeat)
        report(f"read_runs -> pandas ({args.rows:,})", read, args.rows)
        arrow = timed(lambda: store.read_table(runset), args.repeat)
        report(f"read_table -> Arrow ({args.rows:,})", arrow, args.rows)
        frame = frame_holder[-1]
        assert len(frame) == args.rows
        assert frame["run_id"].is_unique
        assert list(frame["tool_sequence"].iloc[0]) == rows[0]["tool_sequence"]
        assert frame["trajectory"].iloc[-1] == rows[-1]["trajectory"]
        print(
            f"runs.parquet: {size / 2**20:,.1f} MiB ({size / args.rows:,.0f} B/row, "
            f"{text_bytes / size:.1f}x smaller than the raw trajectory JSON)"
        )

        parts_rows = rows[: args.parts]
        parts_set = Path(tmp) / "parts-runset"

        def reset_parts() -> None:
            shutil.rmtree(parts_set, ignore_errors=True)
            parts_set.mkdir()

        def write_parts() -> None:
            for row in parts_rows:
                store.write_run(parts_set, row)

        def with_parts() -> None:
            reset_parts()
            write_parts()

        per_part = timed(write_parts, args.repeat, reset=reset_parts)
        report(f"write_run x {args.parts:,} part files", per_part, args.parts)
        merge = timed(lambda: store.compact(parts_set), args.repeat, reset=with_parts)
        report(f"compact ({args.parts:,} parts)", merge, args.parts)
        merged = store.read_runs(parts_set)
        assert len(merged) == args.parts
        assert not (parts_set / store.PARTS_DIR).exists()
        print(
            f"compacted runs.parquet: {(parts_set / store.RUNS_FILE).stat().st_size / 2**10:,.0f}"
            f" KiB for {args.parts:,} rows"
        )


if __name__ == "__main__":
    main()
