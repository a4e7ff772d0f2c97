"""Benchmark: what capture at the wire costs a framework's run on the embedded model.

For each framework of ``examples/`` (openai-agents, smolagents, pydantic-ai, LangGraph, the Node
command): the example suite runs through ``trajguard run``'s machinery (``run.run_batch``) with its
agent reaching the model at the wire endpoint; every request the endpoint forwarded is kept.
None of these frameworks can call the embedded server directly as they are (content parts,
``content: null``, ``tool_choice``: the shapes the endpoint rewrites), so "the framework calling
the model directly" is measured request by request: each forwarded request is sent through a
wire session and straight to the llama.cpp server, ``--pairs`` times each in ABBA order after one
warm-up call of each kind (which also leaves the prompt in llama.cpp's cache), with the same body,
seed and sampling but ``max_tokens = 1`` (the answers are checked to be the same). On a shared
machine the model's own time still varies by more than the wire costs, so the wire's cost is
also measured with the model replaced by a server that answers at once: every request a
framework's runs forwarded goes through a wire session (checks, rewrites, litellm, the record)
and directly to that server, ``--stub-pairs`` times in ABBA order. A run's overhead is that
cost (the median over its requests) times its calls, as a share of its wall time through the
wire.

Run: python benchmarks/bench_wire.py [--frameworks smolagents openai_agents ...] [--runs 2]
     [--pairs 10] [--calls 6] [--stub-pairs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = ("openai_agents", "smolagents", "pydantic_ai", "langgraph", "node_command")


def _recording_model(sent: list[dict[str, Any]]) -> Any:
    from trajguard.capture import LiteLLMModel

    class Recording(LiteLLMModel):
        """The run's model, keeping each request the wire endpoint forwards to it."""

        async def complete(self, messages: Any, **kwargs: Any) -> Any:
            if list(messages) != [{"role": "user", "content": "ping"}]:
                sent.append({"messages": list(messages), **kwargs})
            return await super().complete(messages, **kwargs)

    return Recording("local/smollm2")


def run_framework(name: str, runs: int, workdir: Path) -> tuple[list[dict[str, Any]], list[Any]]:
    """Run the example suite ``runs`` times; its rows and the requests its runs forwarded."""
    from trajguard import store
    from trajguard.runner import BatchOptions, run_batch
    from trajguard.suite import load_suite

    folder = ROOT / "examples" / name
    data = yaml.safe_load((folder / "suite.yaml").read_text())
    for scenario in data["scenarios"]:
        agent = scenario["agent"]
        if agent["kind"] == "command":
            agent["argv"] = [str(folder / a) if (folder / a).exists() else a for a in agent["argv"]]
    sys.path.insert(0, str(folder))
    path = workdir / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    sent: list[dict[str, Any]] = []
    runset = workdir / f"{name}-runs"
    options = BatchOptions(runs=runs, seed=20261201, timeout_s=1800, concurrency=1)
    model = _recording_model(sent)
    asyncio.run(run_batch(load_suite(path), runset, options, make_model=lambda _: model))
    return store.read_runs(runset).to_dict("records"), sent


def _body(request: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "smollm2", "messages": request["messages"]}
    for key in ("temperature", "max_tokens", "seed", "response_format"):
        if request.get(key) is not None:
            body[key] = request[key]
    if request.get("tools"):
        body["tools"] = request["tools"]
        body["tool_choice"] = "auto"
    body.update(request.get("options") or {})
    return body


def _timed(client: httpx.Client, url: str, body: dict[str, Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    response = client.post(url, json=body, timeout=600)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    message = response.json()["choices"][0]["message"]
    calls = [  # call ids are random per response: compare what was called
        (call["function"]["name"], call["function"]["arguments"])
        for call in message.get("tool_calls") or ()
    ]
    return elapsed, (message.get("content") or "", json.dumps(calls))


def per_call_overhead(requests: list[Any], pairs: int) -> list[dict[str, float]]:
    """Each request through a wire session and directly, alternately: the wire's cost."""
    from trajguard.capture import LiteLLMModel, release_loop_clients
    from trajguard.capture.wire import WireServer
    from trajguard.local_model import get_local_server

    direct_url = f"{get_local_server().base_url}/chat/completions"
    model = LiteLLMModel("local/smollm2")

    async def forward(request: Any) -> Any:  # as a run's forwarder, the body's values as they are
        options = dict(request.options)
        explicit = {k: options.pop(k, None) for k in ("temperature", "max_tokens", "seed")}
        response_format = options.pop("response_format", None)
        return await model.complete(
            request.messages,
            tools=request.tools,
            response_format=response_format,
            options=options,
            **explicit,
        )

    results = []
    with WireServer(on_stop=release_loop_clients) as wire, httpx.Client() as client:
        session = wire.open(forward=forward, model="local/smollm2", embedded=True)
        wire_url = f"{session.base_url}/chat/completions"
        for request in requests:
            body = {**_body(request), "max_tokens": 1}
            _timed(client, wire_url, body)  # warm both paths on this prompt
            _timed(client, direct_url, body)
            via_wire, direct, same = [], [], True
            for index in range(pairs):
                if index % 2:  # ABBA: neither side always goes first
                    d, d_answer = _timed(client, direct_url, body)
                    w, w_answer = _timed(client, wire_url, body)
                else:
                    w, w_answer = _timed(client, wire_url, body)
                    d, d_answer = _timed(client, direct_url, body)
                via_wire.append(w)
                direct.append(d)
                same = same and w_answer == d_answer
            results.append(
                {
                    "wire_s": statistics.median(via_wire),
                    "direct_s": statistics.median(direct),
                    "overhead_s": statistics.median(
                        w - d for w, d in zip(via_wire, direct, strict=True)
                    ),
                    "same_answer": float(same),
                }
            )
    return results


_STUB_ANSWER = json.dumps(
    {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "391"},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
    }
).encode()


class _Stub:
    """An OpenAI-compatible server (aiohttp, a thread of its own) that answers at once."""

    def __init__(self) -> None:
        import threading

        from aiohttp import web

        async def answer(request: web.Request) -> web.Response:
            await request.read()
            return web.Response(body=_STUB_ANSWER, content_type="application/json")

        self.loop = asyncio.new_event_loop()
        app = web.Application()
        app.router.add_post("/v1/chat/completions", answer)
        self.runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        self.port = int(self.runner.addresses[0][1])
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def shutdown(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.run_until_complete(self.runner.cleanup())
        self.loop.close()


def stub_cost(requests: list[Any], pairs: int) -> list[float]:
    """The wire's cost per call, the model replaced by a server that answers at once: each
    recorded request through a wire session (checks, rewrites, litellm, the record) and
    directly, ``pairs`` times in ABBA order."""
    from trajguard.capture import LiteLLMModel, release_loop_clients
    from trajguard.capture.wire import WireServer

    stub = _Stub()
    base = f"http://127.0.0.1:{stub.port}/v1"
    model = LiteLLMModel("openai/stub", api_base=base, api_key="sk-stub")

    async def forward(request: Any) -> Any:
        options = dict(request.options)
        explicit = {k: options.pop(k, None) for k in ("temperature", "max_tokens", "seed")}
        options.pop("response_format", None)
        return await model.complete(
            request.messages, tools=request.tools, options=options, **explicit
        )

    costs = []
    try:
        with WireServer(on_stop=release_loop_clients) as wire, httpx.Client() as client:
            session = wire.open(forward=forward, model="local/smollm2", embedded=True)
            wire_url, direct_url = (
                f"{session.base_url}/chat/completions",
                f"{base}/chat/completions",
            )
            for request in requests:
                body = _body(request)
                _timed(client, wire_url, body)
                _timed(client, direct_url, body)
                differences = []
                for index in range(pairs):
                    if index % 2:
                        d, _ = _timed(client, direct_url, body)
                        w, _ = _timed(client, wire_url, body)
                    else:
                        w, _ = _timed(client, wire_url, body)
                        d, _ = _timed(client, direct_url, body)
                    differences.append(w - d)
                costs.append(statistics.median(differences))
    finally:
        stub.shutdown()
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frameworks", nargs="*", default=list(FRAMEWORKS), choices=FRAMEWORKS)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=10, help="0: no real-model comparison")
    parser.add_argument("--calls", type=int, default=6, help="requests measured per framework")
    parser.add_argument("--stub-pairs", type=int, default=40, help="pairs per request, stub model")
    args = parser.parse_args()
    from trajguard.local_model import get_local_server

    get_local_server()
    print(f"load average at start: {os.getloadavg()}")
    print(
        "| framework | runs | median run (wire) | calls per run | wire cost per call, stub model "
        "| share of run wall time | real model: wire - direct per call (direct call) "
        "| same answers |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    workdir = Path(tempfile.mkdtemp(prefix="bench-wire-"))
    try:
        for name in args.frameworks:
            rows, sent = run_framework(name, args.runs, workdir)
            step = max(1, len(sent) // args.calls)
            chosen = sent[::step][: args.calls]
            cost = statistics.median(stub_cost(sent, args.stub_pairs))
            measured = per_call_overhead(chosen, args.pairs) if args.pairs else []
            real = (
                f"{1000 * statistics.median(m['overhead_s'] for m in measured):+.0f} ms "
                f"({1000 * statistics.median(m['direct_s'] for m in measured):.0f} ms)"
                if measured
                else "not measured (--pairs 0)"
            )
            durations = [float(row["duration_s"]) for row in rows]
            calls = [int(row["llm_calls"] or 0) for row in rows]
            shares = [cost * n / d for n, d in zip(calls, durations, strict=True) if d > 0]
            same = sum(m["same_answer"] for m in measured)
            print(
                f"| {name} | {len(rows)} | {statistics.median(durations):.1f} s | "
                f"{statistics.median(calls):g} | {1000 * cost:.1f} ms | "
                f"{100 * statistics.median(shares):.2f} % (max {100 * max(shares):.2f} %) | "
                f"{real} | "
                f"{same:g}/{len(measured)} |",
                flush=True,
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
