"""Run sets whose runs have costs: an agent that calls its model once, its answers replayed from
a cassette (no network), priced from litellm's map (``openai/gpt-4o-mini``) and from the suite's
own price table (``local/smollm2``)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from trajguard.capture import Cassette, Interaction, LLMResponse, Message, Usage, fingerprint
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

MINI = "openai/gpt-4o-mini"
LOCAL_PRICE = {"input": 0.5, "output": 1.5}
"""The suite's price of the embedded model, US dollars per million tokens."""

AGENT = """
async def agent(ctx):
    ctx.recorder.user(ctx.input)
    messages = [{"role": "user", "content": ctx.input}]
    if ctx.system_prompt:
        messages.insert(0, {"role": "system", "content": ctx.system_prompt})
    response = await ctx.model.complete(messages, seed=ctx.seed)
    ctx.recorder.agent_step(response)
"""

SUITE = """
name: priced
defaults: {{runs: 12, concurrency: 1, timeout_s: 30, model: {model}}}
prices:
  local/smollm2: {{input: {input}, output: {output}}}
scenarios:
  - id: multiply
    agent: {{kind: callable, function: "priced_agent:agent"}}
    input: What is 17 * 23?
    pass: [{{final_output_contains: "391"}}]
  - id: again
    agent: {{kind: callable, function: "priced_agent:agent"}}
    input: And 23 * 17?
    pass: [{{final_output_contains: "391"}}]
"""
"""Two scenarios, 12 runs each, of one model (``{model}``), with the embedded model's price."""


def write_cassette(path: Path, *, calls: int, completion: int, seed: int) -> Cassette:
    """A cassette of ``calls`` answers "17 * 23 = 391", about ``completion`` completion tokens
    each (a spread of ±25 %), about 60 prompt tokens."""
    draw = random.Random(seed)
    requests = [
        {"messages": [{"role": "user", "content": f"call {i}"}], "params": {}, "tools": None}
        for i in range(calls)
    ]
    interactions = [
        Interaction(
            request=request,
            fingerprint=fingerprint(request),
            response=LLMResponse(
                content="17 * 23 = 391",
                finish_reason="stop",
                model="gpt-4o-mini-2024-07-18",
                usage=Usage(
                    prompt_tokens=60 + draw.randint(0, 4),
                    completion_tokens=round(completion * draw.uniform(0.75, 1.25)),
                ),
            ),
        )
        for request in requests
    ]
    cassette = Cassette(path=path, model_name=MINI, interactions=interactions)
    cassette.save()
    return Cassette.load(path)


class CassetteAnswers:
    """A model answering each call with the cassette's next recorded response, in order and
    whatever was asked (the batch's ``ping`` excepted): the recorded usage is what is priced."""

    def __init__(self, cassette: Cassette, name: str) -> None:
        self._responses = [i.response for i in cassette.interactions if i.response is not None]
        self._name = name
        self._next = 0
        self._lock = asyncio.Lock()

    @property
    def model_name(self) -> str:
        return self._name

    async def complete(
        self, messages: Sequence[Message], **options: Any
    ) -> LLMResponse:  # the protocol's keyword arguments, unused
        if list(messages) == [{"role": "user", "content": "ping"}]:
            return LLMResponse(content="pong")
        async with self._lock:
            response = self._responses[self._next]
            self._next += 1
        return response


def priced_runset(root: Path, name: str, *, completion: int, seed: int, model: str = MINI) -> Path:
    """A finished run set of the suite (written into ``root`` with its agent) for ``model``,
    its answers replayed in order from ``<name>.cassette.json`` (one run at a time)."""
    (root / "priced_agent.py").write_text(AGENT)
    suite_file = root / f"suite-{model.replace('/', '-')}.yaml"
    suite_file.write_text(SUITE.format(model=model, **LOCAL_PRICE))
    suite = load_suite(suite_file)
    cassette = write_cassette(
        root / f"{name}.cassette.json", calls=24, completion=completion, seed=seed
    )
    answers = CassetteAnswers(cassette, model)

    def make_model(arm: Any) -> CassetteAnswers:
        return answers

    out = root / name
    asyncio.run(run_batch(suite, out, BatchOptions(seed=seed), make_model=make_model))
    return out


@contextmanager
def token_server() -> Iterator[dict[str, Any]]:
    """An OpenAI-compatible model on a free port of 127.0.0.1 that answers "17 * 23 = 391"
    whatever the prompt, with usage drawn from the request's seed: about 60 prompt tokens and
    16 to 24 completion tokens, twice as many when the system prompt asks to explain. Yields
    ``{"api_base", "calls"}``."""
    lock = threading.Lock()
    state: dict[str, Any] = {"calls": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            seed = int(body.get("seed") or 0)
            system = " ".join(
                str(m.get("content")) for m in body["messages"] if m.get("role") == "system"
            )
            completion = (16 + seed % 9) * (2 if "Explain" in system else 1)
            with lock:
                state["calls"] += 1
            answer = "17 * 23 = 391"
            payload = json.dumps(
                {
                    "id": "t",
                    "object": "chat.completion",
                    "created": 1,
                    "model": "gpt-4o-mini-2024-07-18",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": answer},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": 60 + seed % 5,
                        "completion_tokens": completion,
                        "total_tokens": 60 + seed % 5 + completion,
                    },
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["api_base"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
