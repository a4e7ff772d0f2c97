"""What the path and world criteria cost per run (issue 37, items 3-4): ``tool_sequence`` in each
match mode, ``final_state`` by equality, and the regex guard, on hand-built normalised runs.

A ``tool_sequence`` pairs calls with entries by a maximum matching; its cost grows with
entries x calls in the worst case. Measured: a typical criterion (``--entries`` entries against
twice as many calls, arguments matched by value and regex) and the bound a suite may reach (500
entries, 1,000 calls), each in the three matching modes, plus a final state of ``--keys`` keys
compared for equality. Each figure is the median of ``--repeats`` timings of one evaluation.

    python benchmarks/bench_path_criteria.py --entries 20 --keys 1000 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from pydantic import TypeAdapter

from trajguard.core import normalize, shape
from trajguard.suite import Criterion, evaluate_criteria, import_object, parse_criterion

ADAPTER: TypeAdapter[Any] = TypeAdapter(Criterion)


def _run(calls: int, state: dict[str, Any]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": "go"}]
    for i in range(calls):
        steps.append(
            {
                "step_id": i + 2,
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": f"c{i}", "function_name": "lookup", "arguments": {"i": i}}
                ],
            }
        )
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "bench", "version": "1"},
        "steps": steps,
        "extra": {"final_state": state},
    }


def _timed(raw: dict[str, Any], trajectory: dict[str, Any], repeats: int) -> tuple[float, bool]:
    criterion = ADAPTER.validate_python(parse_criterion(raw))
    normalized = normalize(trajectory)
    run_shape = shape(normalized)
    times, held = [], False
    for _ in range(repeats):
        start = time.perf_counter()
        (result,) = evaluate_criteria([criterion], normalized, run_shape, resolve=import_object)
        times.append(time.perf_counter() - start)
        held = result.passed
    return statistics.median(times), held


def _entries(count: int) -> list[dict[str, Any]]:
    half = count // 2
    exact = [{"name": "lookup", "arguments": {"i": i}} for i in range(half)]
    regex = [
        {"name": "lookup", "arguments": {"i": {"regex": f"^{i}$"}}} for i in range(half, count)
    ]
    return exact[::-1] + regex


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=20)
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| criterion | entries × calls | mode | held | median time |")
    print("|---|---|---|---|---|")
    for entries, calls in ((args.entries, 2 * args.entries), (500, 1000)):
        trajectory = _run(calls, {})
        for mode in ("superset", "subset", "unordered"):
            raw = {"tool_sequence": {"mode": mode, "calls": _entries(entries)}}
            seconds, held = _timed(raw, trajectory, args.repeats)
            print(f"| tool_sequence | {entries} × {calls} | {mode} | {held} | {seconds:.4f} s |")
    state = {f"k{i}": {"n": i, "tags": ["a", "b"]} for i in range(args.keys)}
    changed = {**state, f"k{args.keys - 1}": {"n": -1, "tags": ["a", "b"]}}
    for label, final in (("equal", state), ("one key differs", changed)):
        seconds, held = _timed({"final_state": {"expected": state}}, _run(1, final), args.repeats)
        print(f"| final_state ({label}) | {args.keys} keys | exact | {held} | {seconds:.4f} s |")


if __name__ == "__main__":
    main()
