"""Benchmark: a framework's run captured at the wire against the same run without trajguard.

For each example of ``examples/`` (openai-agents, smolagents, pydantic-ai, LangGraph, the Node
command) and each of its scenarios, ``--rounds`` pairs of runs on the embedded model, in one
invocation, in ABBA order (round 0: wire then direct, round 1: direct then wire, ...):

* **wire**: the run through ``run.run_batch``, in a batch of its own: the agent reaches its
  model at the batch's wire endpoint, which records every call; the run's time is its row's
  ``duration_s`` (the agent, the wire, litellm, the record, the trajectory).
* **direct**: the same agent function (or the same Node command) called by this script with the
  same inputs, its client pointed at the model server, no trajguard around it; the run's time is
  the agent call alone.

The llama.cpp server keeps the prompt of the request it served last and reuses its prefix: a
run that follows another run of the same agent finds the shared system prompt and tools already
evaluated. A batch's first model check (a one-word request) clears that, so a run at the start of
a batch evaluates its whole first prompt; the direct side sends the same one-word request before
each run, so both sides start from the same cache. The server's own count of the tokens it
evaluated for each run (prompt tokens its cache did not hold, plus each generated token) is
printed beside the times: equal counts mean the model did the same work on both sides.

None of these frameworks can use the embedded llama.cpp server as they are: it refuses some
of their request shapes (content given as parts, ``content: null`` after a tool call: smolagents
and pydantic-ai fail) and offers the model no tools unless ``tool_choice`` is ``"auto"``
(openai-agents, LangGraph and the Node agent get an answer without a tool call) — what the wire
endpoint rewrites; ``--probe`` shows it. So "direct" goes through a shape-only relay: the request
is checked and rewritten by the same ``parse_request`` the wire uses, posted as is to the
server, and the server's answer relayed byte for byte (no litellm, no record, no trajectory).
What the comparison charges to capture is litellm, the record, the trajectory; the relay's hop
and rewrite are on both sides (``bench_wire.py`` measures the wire's whole cost per call, hop
included, against a server that answers at once).

Sampling is greedy (temperature 0) on both sides, so a pair does the same model work; a pair is
"same" when both sides made the same number of model calls with the same completion tokens.

Run: python benchmarks/bench_frameworks.py [--frameworks smolagents ...] [--rounds 4] [--probe]
     python benchmarks/bench_frameworks.py --summarise LOG   (the table again, from its output)
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = ("openai_agents", "smolagents", "pydantic_ai", "langgraph", "node_command")
SEED = 20261201


@dataclass
class Relay:
    """An OpenAI-compatible relay (aiohttp, a thread of its own) to the embedded server that
    only makes requests sendable: ``parse_request(embedded=True)``, nothing recorded.

    With ``rewrite=False`` the body goes to the server exactly as the client sent it."""

    upstream: str
    rewrite: bool = True
    temperature: float | None = 0.0
    max_tokens: int | None = None
    calls: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)

    def start(self) -> str:
        from aiohttp import ClientSession, ClientTimeout, web

        from trajguard.capture.wire import RequestShapeError, parse_request

        async def relay(request: web.Request) -> web.StreamResponse:
            body = await request.json()
            if self.rewrite:
                try:
                    parsed = parse_request(body, embedded=True)
                except RequestShapeError as exc:
                    self.errors.append(str(exc))
                    return web.json_response({"error": {"message": str(exc)}}, status=400)
                body = {"model": "smollm2", "messages": parsed.messages, **parsed.options}
                if parsed.tools:
                    body["tools"] = parsed.tools
                if parsed.stream:
                    body["stream"] = True
                body.setdefault("temperature", self.temperature)  # as the run's forwarder does
                if self.max_tokens is not None:
                    body.setdefault("max_tokens", self.max_tokens)
            self.calls += 1
            async with self._session.post(f"{self.upstream}/chat/completions", json=body) as up:
                if body.get("stream"):
                    response = web.StreamResponse(status=up.status)
                    response.content_type = up.content_type
                    await response.prepare(request)
                    async for chunk in up.content.iter_any():
                        await response.write(chunk)
                    await response.write_eof()
                    return response
                raw = await up.read()
                if up.status == 200:
                    usage = json.loads(raw).get("usage") or {}
                    self.completion_tokens += int(usage.get("completion_tokens") or 0)
                else:
                    self.errors.append(f"{up.status}: {raw[:300]!r}")
                return web.Response(body=raw, status=up.status, content_type="application/json")

        self.loop = asyncio.new_event_loop()

        async def open_session() -> ClientSession:
            return ClientSession(timeout=ClientTimeout(total=900))

        self._session = self.loop.run_until_complete(open_session())
        app = web.Application()
        app.router.add_post("/v1/chat/completions", relay)
        self.runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        port = int(self.runner.addresses[0][1])
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        return f"http://127.0.0.1:{port}/v1"

    def reset(self) -> None:
        self.calls, self.completion_tokens, self.errors = 0, 0, []

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.run_until_complete(self._session.close())
        self.loop.run_until_complete(self.runner.cleanup())
        self.loop.close()


def bench_suite(name: str, workdir: Path) -> Path:
    """The example's suite, greedy, its command paths made absolute."""
    folder = ROOT / "examples" / name
    data = yaml.safe_load((folder / "suite.yaml").read_text())
    data["defaults"]["temperature"] = 0.0
    for scenario in data["scenarios"]:
        agent = scenario["agent"]
        if agent["kind"] == "command":
            agent["argv"] = [str(folder / a) if (folder / a).exists() else a for a in agent["argv"]]
            agent["params"] = {**agent.get("params", {}), "temperature": 0.0}
    path = workdir / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def wire_run(path: Path, runset: Path, scenario: str) -> dict[str, Any]:
    """One run of ``scenario`` in a batch of its own, captured at the wire: its row."""
    from trajguard import store
    from trajguard.runner import BatchOptions, execute
    from trajguard.suite import load_suite

    options = BatchOptions(runs=1, seed=SEED, concurrency=1, scenarios=(scenario,))
    execute(load_suite(path), runset, options)
    (row,) = store.read_runs(runset).to_dict("records")
    return dict(row)


def evict(server: Any) -> None:
    """What a batch's first model check does to the server's prompt cache, done before a
    direct run: a one-word request, so neither side's run finds the previous run's prefix."""
    import httpx

    body = {"model": "smollm2", "messages": [{"role": "user", "content": "ping"}], "max_tokens": 1}
    httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=600).raise_for_status()


def direct_run(arm: Any, seed: int, base_url: str) -> tuple[float, str | None]:
    """The scenario's agent once, its client at ``base_url``: (seconds, error or None)."""
    from trajguard.capture import LiteLLMModel, TrajectoryRecorder
    from trajguard.runner import RunContext
    from trajguard.suite import CallableAgent, import_object

    agent = arm.agent
    if not isinstance(agent, CallableAgent):
        return _direct_command(arm, seed, base_url)
    function = import_object(agent.function)
    ended: list[str] = []
    context = RunContext(
        input=arm.input,
        scenario=arm.scenario,
        variant=arm.variant,
        seed=seed,
        temperature=arm.temperature,
        max_tokens=arm.max_tokens,
        max_steps=arm.max_steps,
        system_prompt=arm.system_prompt,
        params=dict(arm.params),
        model=LiteLLMModel(arm.model),
        model_name=arm.model,
        litellm_model=f"openai/{arm.model}",
        base_url=base_url,
        api_key="sk-direct",
        recorder=TrajectoryRecorder(agent_name="direct", agent_version="0", model_name=arm.model),
        agent_error=lambda reason, message="": ended.append(reason),
    )
    started = time.perf_counter()
    try:
        if inspect.iscoroutinefunction(function):
            asyncio.run(function(context))
        else:
            function(context)
    except Exception as exc:  # the framework's own failure: timed, and reported
        return time.perf_counter() - started, f"{type(exc).__name__}: {str(exc)[:200]}"
    return time.perf_counter() - started, None


def _direct_command(arm: Any, seed: int, base_url: str) -> tuple[float, str | None]:
    agent = arm.agent
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            **os.environ,
            **agent.env,
            "TRAJGUARD_API_BASE": base_url,
            "TRAJGUARD_API_KEY": "sk-direct",
            "TRAJGUARD_MODEL": arm.model,
            "TRAJGUARD_INPUT": arm.input,
            "TRAJGUARD_SEED": str(seed),
            "TRAJGUARD_SYSTEM_PROMPT": arm.system_prompt or "",
            "TRAJGUARD_MAX_STEPS": str(arm.max_steps),
            "TRAJGUARD_TEMPERATURE": json.dumps(arm.temperature),
            "TRAJGUARD_PARAMS": json.dumps(dict(arm.params)),
            "TRAJGUARD_AGENT_ERROR": str(Path(scratch) / "agent_error.json"),
        }
        started = time.perf_counter()
        done = subprocess.run(
            list(agent.argv), cwd=arm.base_dir, env=env, capture_output=True, check=False
        )
        elapsed = time.perf_counter() - started
    error = done.stderr.decode(errors="replace")[-300:] if done.returncode else None
    return elapsed, error


def arms_of(path: Path) -> dict[str, Any]:
    from trajguard.runner import BatchOptions, plan_batch
    from trajguard.suite import load_suite

    plan = plan_batch(load_suite(path), BatchOptions(runs=1, seed=SEED), batch_seed=SEED)
    return {arm.scenario: (spec, arm) for spec, arm in plan}


def probe(name: str, path: Path, server: str) -> None:
    """Each scenario once straight at the embedded server, unchanged."""
    relay = Relay(upstream=server, rewrite=False)
    url = relay.start()
    try:
        for scenario, (spec, arm) in arms_of(path).items():
            relay.reset()
            _, error = direct_run(arm, spec.seed, url)
            refused = "; ".join(relay.errors)[:200] or "-"
            print(f"| {name} | {scenario} | {relay.calls} | {error or '-'} | {refused} |")
    finally:
        relay.stop()


def bench(name: str, path: Path, server: Any, rounds: int, workdir: Path) -> dict[str, Any]:
    folder = ROOT / "examples" / name
    sys.path.insert(0, str(folder))  # before the suite loads: it imports the agent's module
    arms = arms_of(path)
    relay = Relay(upstream=server.base_url)
    url = relay.start()
    pairs: list[dict[str, Any]] = []
    try:
        for round_ in range(rounds):
            for scenario, (spec, arm) in arms.items():
                pair: dict[str, Any] = {"scenario": scenario}
                for side in ("wire", "direct") if round_ % 2 == 0 else ("direct", "wire"):
                    if side == "direct":
                        evict(server)
                    before = server.counters()
                    if side == "wire":
                        row = wire_run(path, workdir / f"{name}-{round_}-{scenario}", scenario)
                        pair |= {
                            "wire_s": float(row["duration_s"]),
                            "status": row["status"],
                            "calls": int(row["llm_calls"] or 0),
                            "wire_tokens": int(row["completion_tokens"] or 0),
                        }
                    else:
                        relay.max_tokens = arm.max_tokens
                        relay.reset()
                        seconds, error = direct_run(arm, spec.seed, url)
                        pair |= {
                            "direct_s": seconds,
                            "direct_calls": relay.calls,
                            "direct_tokens": relay.completion_tokens,
                            "direct_error": error or "; ".join(relay.errors) or None,
                        }
                    after = server.counters()
                    pair[f"{side}_evaluated"] = after["evaluated"] - before["evaluated"]
                # the wire side's batch also sends its first model check (a few tokens)
                pair["same"] = (pair["calls"], pair["wire_tokens"]) == (
                    pair["direct_calls"],
                    pair["direct_tokens"],
                )
                pairs.append(pair)
                print(f"  {name} round {round_} {json.dumps(pair)}", flush=True)
    finally:
        relay.stop()
        sys.path.remove(str(folder))
    return summarise(name, pairs)


def _work(pairs: list[dict[str, Any]]) -> str:
    """Tokens the server evaluated per run, wire / direct (medians), when they were counted."""
    if not all("wire_evaluated" in p for p in pairs):
        return "-"
    wire = statistics.median(p["wire_evaluated"] for p in pairs)
    direct = statistics.median(p["direct_evaluated"] for p in pairs)
    return f"{wire:g} / {direct:g}"


def _summed(pairs: list[dict[str, Any]]) -> float:
    return sum(p["wire_s"] for p in pairs) / sum(p["direct_s"] for p in pairs) - 1


def summarise(name: str, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """One table line: the pairs that did the same model work, wire against direct."""
    same = [p for p in pairs if p["same"]]
    cells = "- | - | - |"
    if same:
        ratios = [p["wire_s"] / p["direct_s"] - 1 for p in same]
        draw = random.Random(0)
        resampled = sorted(_summed(draw.choices(same, k=len(same))) for _ in range(2000))
        low, high = resampled[49], resampled[1949]  # 95 % percentile bootstrap over pairs
        cells = (
            f"{100 * statistics.median(ratios):+.1f} % [{100 * min(ratios):+.1f}, "
            f"{100 * max(ratios):+.1f}] | {100 * _summed(same):+.1f} % | "
            f"[{100 * low:+.1f}, {100 * high:+.1f}] % |"
        )
    line = (
        f"| {name} | {len(pairs)} | {len(same)} | "
        f"{statistics.median(p['wire_s'] for p in pairs):.2f} s | "
        f"{statistics.median(p['direct_s'] for p in pairs):.2f} s | "
        f"{statistics.median(p['calls'] for p in pairs):g} | {_work(pairs)} | {cells}"
    )
    return {"name": name, "pairs": pairs, "line": line}


HEADER = (
    "| framework | pairs | same model work | median run, wire | median run, direct "
    "| model calls per run | tokens evaluated per run, wire / direct "
    "| wire vs direct per pair: median [min, max] | summed | summed, 95 % bootstrap |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def from_log(log: Path) -> list[dict[str, Any]]:
    """The summaries of the pairs an earlier invocation printed (``NAME round R {json}``)."""
    by_name: dict[str, list[dict[str, Any]]] = {}
    for line in log.read_text().splitlines():
        words = line.split(maxsplit=3)
        if len(words) == 4 and words[1] == "round":
            by_name.setdefault(words[0], []).append(json.loads(words[3]))
    return [summarise(name, pairs) for name, pairs in by_name.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frameworks", nargs="*", default=list(FRAMEWORKS), choices=FRAMEWORKS)
    parser.add_argument("--rounds", type=int, default=4, help="pairs per scenario (ABBA)")
    parser.add_argument("--probe", action="store_true", help="first try each example unrelayed")
    parser.add_argument("--summarise", type=Path, help="only summarise this invocation's output")
    args = parser.parse_args()
    if args.summarise is not None:
        print(HEADER)
        for result in from_log(args.summarise):
            print(result["line"])
        return
    from trajguard.local_model import get_local_server

    print(f"load average at start: {os.getloadavg()}", flush=True)
    server = get_local_server()
    with tempfile.TemporaryDirectory(prefix="bench-frameworks-") as scratch:
        workdir = Path(scratch)
        paths = {name: bench_suite(name, workdir) for name in args.frameworks}
        if args.probe:
            print("| framework | scenario | requests | framework's error | server refused |")
            print("|---|---|---:|---|---|")
            for name in args.frameworks:
                sys.path.insert(0, str(ROOT / "examples" / name))
                probe(name, paths[name], server.base_url)
                sys.path.remove(str(ROOT / "examples" / name))
        results = [bench(n, paths[n], server, args.rounds, workdir) for n in args.frameworks]
    print(f"load average at end: {os.getloadavg()}")
    print(HEADER)
    for result in results:
        print(result["line"])


if __name__ == "__main__":
    main()
