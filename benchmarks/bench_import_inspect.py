"""Import of a 10,000-sample Inspect log: wall time and peak memory, both readers.

Writes a synthetic ``.eval`` log with Inspect's own writer (``inspect_ai.log.write_eval_log``):
1,000 samples x 10 epochs, each with a system prompt, a question, a tool call and its result,
and a final answer, scored by ``includes`` (C or I), with model usage and timings, as
``inspect eval`` writes them. Then times ``trajguard import inspect LOG --out RUNSET`` in a
fresh child process per repeat, once with Inspect's reader and once with the built-in one
(``TRAJGUARD_INSPECT_READER``), and reports wall time and the child's peak RSS
(``resource.getrusage(RUSAGE_SELF).ru_maxrss`` read inside it).

    python benchmarks/bench_import_inspect.py [--samples 1000] [--epochs 10] [--repeat 3]
        [--log PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

_CHILD = """
import json, resource, sys
from trajguard.cli import main
code = main(["import", "inspect", sys.argv[1], "--out", sys.argv[2]])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": code, "peak_kib": peak}), file=sys.stderr)
"""
# The same work as the command (import_logs = read_logs + write_batch), timed in its two halves.
_PARTS = """
import json, resource, sys, time
from pathlib import Path
began = time.perf_counter()
from trajguard.importers import read_logs, write_batch
batch = read_logs("inspect", [Path(sys.argv[1])])
read = time.perf_counter()
peak_read = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
write_batch(batch, Path(sys.argv[2]))
done = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"code": 0, "read_s": read - began, "write_s": done - read,
                  "peak_read_kib": peak_read, "peak_kib": peak}), file=sys.stderr)
"""


def write_log(path: Path, samples: int, epochs: int) -> None:
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.log._log import EvalMetric
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageTool,
        ChatMessageUser,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall

    start = datetime(2026, 12, 1, tzinfo=UTC)
    model = "openai-api/local/smollm2"
    ids = [f"q{i:04d}" for i in range(samples)]
    rows = []
    correct = 0
    for index, sample_id in enumerate(ids):
        for epoch in range(1, epochs + 1):
            right = (index * 7 + epoch * 3) % 10 < 6
            correct += right
            x, y = index, epoch
            answer = f"The sum of {x} and {y} is {x + y}." if right else "I am not sure."
            usage = ModelUsage(input_tokens=180 + index % 50, output_tokens=40, total_tokens=220)
            began = start + timedelta(seconds=index * epochs + epoch)
            rows.append(
                EvalSample(
                    id=sample_id,
                    epoch=epoch,
                    input=f"Use the add tool to add {x} and {y}, then say the sum.",
                    target=str(x + y),
                    messages=[
                        ChatMessageSystem(content="You are a careful assistant. " * 8),
                        ChatMessageUser(content=f"Use the add tool to add {x} and {y}."),
                        ChatMessageAssistant(
                            content="",
                            model=model,
                            tool_calls=[
                                ToolCall(
                                    id=f"call_{index}_{epoch}",
                                    function="add",
                                    arguments={"x": x, "y": y},
                                )
                            ],
                        ),
                        ChatMessageTool(
                            content=str(x + y), tool_call_id=f"call_{index}_{epoch}", function="add"
                        ),
                        ChatMessageAssistant(content=answer, model=model),
                    ],
                    output=ModelOutput(
                        model=model,
                        choices=[
                            ChatCompletionChoice(
                                message=ChatMessageAssistant(content=answer, model=model),
                                stop_reason="stop",
                            )
                        ],
                        usage=usage,
                    ),
                    scores={"includes": Score(value="C" if right else "I", answer=answer)},
                    model_usage={model: usage},
                    started_at=began.isoformat(),
                    completed_at=(began + timedelta(seconds=1.5)).isoformat(),
                    total_time=1.5,
                    working_time=1.4,
                )
            )
    accuracy = correct / len(rows)
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created=start.isoformat(),
            task="bench_add",
            task_args={"variant": "a"},
            dataset=EvalDataset(name="bench", samples=samples, sample_ids=ids),
            model=model,
            config=EvalConfig(epochs=epochs),
            packages={"inspect_ai": _inspect_version()},
        ),
        plan=EvalPlan(steps=[EvalPlanStep(solver="generate")]),
        results=EvalResults(
            total_samples=samples,
            completed_samples=samples,
            scores=[
                EvalScore(
                    name="includes",
                    scorer="includes",
                    metrics={"accuracy": EvalMetric(name="accuracy", value=accuracy)},
                )
            ],
        ),
        stats=EvalStats(
            started_at=start.isoformat(),
            completed_at=(start + timedelta(seconds=len(rows))).isoformat(),
        ),
        samples=rows,
    )
    write_eval_log(log, str(path), format="eval")


def _inspect_version() -> str:
    from importlib.metadata import version

    return version("inspect-ai")


def time_import(
    log: Path, reader: str, work: Path, child: str = _CHILD
) -> tuple[float, dict[str, float]]:
    out = work / f"runset-{reader}"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "TRAJGUARD_INSPECT_READER": reader}
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", child, str(log), str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - began
    report = json.loads(done.stderr.strip().splitlines()[-1])
    if report["code"] != 0:
        raise SystemExit(f"import failed ({reader}): {done.stderr}")
    return wall, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--log", type=Path, help="keep the log here (reused when it exists)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-inspect-") as tmp:
        work = Path(tmp)
        log = args.log or work / "bench.eval"
        if not log.exists():
            began = time.perf_counter()
            write_log(log, args.samples, args.epochs)
            print(f"log written by Inspect's write_eval_log in {time.perf_counter() - began:.1f} s")
        print(f"log: {log.stat().st_size / 2**20:.1f} MiB")
        print("| reader | `trajguard import inspect` wall (median) | range | peak RSS (median) |")
        print("|---|---:|---|---:|")
        for reader in ("inspect", "builtin"):
            figures = [time_import(log, reader, work) for _ in range(args.repeat)]
            walls = [w for w, _ in figures]
            peaks = [r["peak_kib"] for _, r in figures]
            print(
                f"| {reader} | {statistics.median(walls):.1f} s | {min(walls):.1f}–"
                f"{max(walls):.1f} s | {statistics.median(peaks) / 1024:.0f} MiB |"
            )
        print()
        print("| reader | read_logs | peak RSS after reading | write_batch | peak RSS |")
        print("|---|---:|---:|---:|---:|")
        for reader in ("inspect", "builtin"):
            _, parts = time_import(log, reader, work, _PARTS)
            print(
                f"| {reader} | {parts['read_s']:.1f} s | {parts['peak_read_kib'] / 1024:.0f} MiB "
                f"| {parts['write_s']:.1f} s | {parts['peak_kib'] / 1024:.0f} MiB |"
            )
        rows = (work / "runset-builtin" / "runs.parquet").stat().st_size
        print(f"runs.parquet: {rows / 2**20:.1f} MiB; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
