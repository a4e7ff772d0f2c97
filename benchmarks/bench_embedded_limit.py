"""The embedded model's nightly against its compute limit, and one llama.cpp build against another.

The limit is what llama.cpp itself needs for the tokens the servers computed: each server's
counters give the prompt tokens it evaluated and the tokens it generated; a calibration measures,
in a process of its own with the same build and one thread, how long one prompt token and one
generated token take. limit CPU = prompt tokens / prompt rate + generated tokens / generation
rate; the nightly's CPU is this process's plus its servers' (user + system), and the wall limit
is the CPU limit over the servers that ran side by side (one per core).

    python benchmarks/bench_embedded_limit.py sampling [--runs 20] [--repeat 1]
        the default server against llama-cpp-python's own sampling chain
        (tests/support/trajguard_testkit/plain_sampling_server.py), same batch seeds,
        alternating; also counts the runs whose trajectories are identical between the two
    python benchmarks/bench_embedded_limit.py grammar
        one application of a JSON grammar to the whole vocabulary, to 2,048 and to 256 tokens
        (``llama_sampler_apply``, CPU time, 20 each): what checking in logit order saves a token
    python benchmarks/bench_embedded_limit.py builds --lib NAME=DIR [--lib NAME=DIR ...] [--runs 20]
        llama.cpp builds (their lib/ folders, loaded through LLAMA_CPP_LIB_PATH) side by side:
        tokens per second and the nightly's wall time, with each build's system info
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from trajguard import store
from trajguard.local_model import (
    configure_local_servers,
    find_gguf,
    running_local_server,
    stop_local_server,
)
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "demo.yaml"
PLAIN = REPO / "tests" / "support" / "trajguard_testkit" / "plain_sampling_server.py"

_CALIBRATE = r"""
import json, sys, time
import llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_threads=1, n_threads_batch=1, n_ctx=2048,
                      verbose=False, seed=1)
text = open(sys.argv[2], encoding="utf-8").read()
prompt = llm.tokenize(text.encode())[:512]
rates = {"pp": [], "tg": []}
for _ in range(3):
    llm.reset()
    started = time.process_time()
    llm.eval(prompt)
    rates["pp"].append(len(prompt) / (time.process_time() - started))
    token = prompt[-1]
    started = time.process_time()
    for _ in range(64):
        llm.eval([token])
    rates["tg"].append(64 / (time.process_time() - started))
info = llama_cpp.llama_print_system_info().decode()
found = {"pp": max(rates["pp"]), "tg": max(rates["tg"]), "system_info": " ".join(info.split())}
print(json.dumps(found))
"""


def calibrate(env: dict[str, str]) -> dict[str, Any]:
    """Prompt and generation tokens per CPU-second of one thread, best of three."""
    done = subprocess.run(
        [sys.executable, "-c", _CALIBRATE, str(find_gguf()), str(REPO / "README.md")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def _cpu() -> float:
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def nightly(runs: int, seed: int, out: Path, **settings: Any) -> dict[str, Any]:
    """One nightly-sized batch of the demo suite on fresh servers."""
    previous = configure_local_servers(**settings)
    stop_local_server()
    try:
        suite = load_suite(SUITE)
        cpu, started = _cpu(), time.perf_counter()
        result = asyncio.run(run_batch(suite, out, BatchOptions(runs=runs, seed=seed)))
        wall = time.perf_counter() - started
        counters = [s.counters() for slot in range(8) if (s := running_local_server(slot))]
    finally:
        stop_local_server()  # the servers are reaped here: their CPU joins RUSAGE_CHILDREN
        configure_local_servers(**vars(previous))
    cpu = _cpu() - cpu
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "runs": result.planned,
        "servers": len(counters),
        "prompt": sum(c["evaluated"] - c["sampled"] for c in counters),
        "generated": sum(c["sampled"] for c in counters),
        "requests": sum(c["requests"] for c in counters),
        "grammar_fast": sum(c.get("grammar_fast", 0) for c in counters),
        "grammar_whole": sum(c.get("grammar_whole", 0) for c in counters),
    }


def against_limit(figures: dict[str, Any], rates: dict[str, Any]) -> dict[str, float]:
    limit_cpu = figures["prompt"] / rates["pp"] + figures["generated"] / rates["tg"]
    limit_wall = limit_cpu / max(1, figures["servers"])
    return {
        "limit_cpu_s": limit_cpu,
        "cpu_ratio": figures["cpu_s"] / limit_cpu,
        "wall_ratio": figures["wall_s"] / limit_wall,
    }


def _runs(out: Path) -> dict[str, str]:
    rows = store.read_runs(out)
    return {
        row["run_id"]: json.dumps(
            [list(row["tool_sequence"]), row["final_output"], row["passed"]], default=str
        )
        for row in rows.to_dict("records")
    }


def sampling(args: argparse.Namespace) -> None:
    rates = calibrate(dict(os.environ))
    print(f"calibration: {rates['pp']:.0f} prompt tokens/s, {rates['tg']:.1f} generated tokens/s")
    settings = {
        "fast (default)": {},
        "plain (llama-cpp-python's chain)": {"program": (sys.executable, str(PLAIN))},
    }
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(args.repeat):
            outs = {}
            for index, (label, setting) in enumerate(settings.items()):
                out = Path(folder) / f"{index}-{repeat}"
                figures = nightly(args.runs, args.seed + repeat, out, **setting)
                limit = against_limit(figures, rates)
                outs[label] = _runs(out)
                print(
                    f"repeat {repeat + 1} {label}: wall {figures['wall_s']:.1f} s, CPU "
                    f"{figures['cpu_s']:.1f} s; limit {limit['limit_cpu_s']:.1f} CPU-s; "
                    f"CPU / limit {limit['cpu_ratio']:.2f}, "
                    f"wall / limit {limit['wall_ratio']:.2f}; "
                    f"counters: {figures['requests']} requests, {figures['prompt']} prompt and "
                    f"{figures['generated']} generated tokens on {figures['servers']} servers, "
                    f"{figures['grammar_fast']} sampled by logit order "
                    f"({figures['grammar_whole']} of them checking the whole vocabulary) "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
            ours, theirs = outs.values()
            same = sum(ours[run] == theirs.get(run) for run in ours)
            print(
                f"repeat {repeat + 1}: {same} of {len(ours)} runs identical (tools, answer, pass)"
            )


def builds(args: argparse.Namespace) -> None:
    libs = dict(item.split("=", 1) for item in args.lib)
    with tempfile.TemporaryDirectory() as folder:
        for name, lib in libs.items():
            env = {**os.environ, "LLAMA_CPP_LIB_PATH": lib}
            rates = calibrate(env)
            print(f"{name}: {rates['system_info']}")
            print(
                f"{name}: {rates['pp']:.0f} prompt tokens/s, {rates['tg']:.1f} generated tokens/s"
            )
        for repeat in range(args.repeat):
            for name, lib in libs.items():
                os.environ["LLAMA_CPP_LIB_PATH"] = lib
                try:
                    figures = nightly(
                        args.runs, args.seed + repeat, Path(folder) / f"{name}-{repeat}"
                    )
                finally:
                    del os.environ["LLAMA_CPP_LIB_PATH"]
                print(
                    f"repeat {repeat + 1} {name}: nightly wall {figures['wall_s']:.1f} s, CPU "
                    f"{figures['cpu_s']:.1f} s ({figures['runs']} runs; load "
                    f"{os.getloadavg()[0]:.1f})",
                    flush=True,
                )


_GRAMMAR = r"""
import ctypes, json, sys, time
import numpy as np
import llama_cpp
from llama_cpp import LlamaGrammar
from trajguard.local_model._sampling import _TOKEN_DATA, _candidates
llm = llama_cpp.Llama(model_path=sys.argv[1], n_threads=1, n_ctx=512, verbose=False, seed=1)
text = {"type": "string"}
schema = {"type": "object", "properties": {"tool": text, "answer": text}}
grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
sampler = llama_cpp.llama_sampler_init_grammar(
    llm._model.vocab, grammar._grammar.encode(), grammar._root.encode()
)
n = llm.n_vocab()
rows = np.zeros(n, dtype=_TOKEN_DATA)
rows["id"] = np.arange(n)
rows["logit"] = np.random.default_rng(0).normal(size=n)
for size in (n, 2048, 256):
    started = time.process_time()
    for _ in range(20):
        block = rows[:size].copy()
        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(_candidates(llama_cpp, block)))
    print(f"{size} tokens: {1000 * (time.process_time() - started) / 20:.3f} ms per application")
"""


def grammar(args: argparse.Namespace) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _GRAMMAR, str(find_gguf())],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    print(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["sampling", "builds", "grammar"])
    parser.add_argument("--runs", type=int, default=20, help="runs per scenario")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=3401)
    parser.add_argument("--lib", action="append", default=[], help="NAME=DIR of a build's lib/")
    args = parser.parse_args()
    {"sampling": sampling, "builds": builds, "grammar": grammar}[args.what](args)


if __name__ == "__main__":
    main()
