"""A scripted judge and an agent that repeats answers, for bench_judge_calibration.py (issue 35),
and a scripted pairwise judge (which of two answers is better) for its ``pairwise`` part.

The agent answers one of four texts; two are right, two wrong. The judge reads the judged text
and knows the truth of each answer; what it says depends on its kind:

* ``consistent``: the truth, every time;
* ``biased``: always PASS on the wrong answer ``LENIENT`` (the truth on the others);
* ``random-F``: the truth, flipped with probability F on each call (fresh noise per call: a
  judge at temperature > 0 that does not honour seeds).

The same logic serves the in-process simulation (:func:`verdicts`, vectorised) and the HTTP
server (:func:`judge_server`, one verdict per request on 127.0.0.1).
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

ANSWERS = (
    "Paris.",
    "The capital of France is Paris.",
    "Lyon.",
    "I do not know.",
)
RIGHT = np.array([True, True, False, False])
LENIENT = 2
"""The wrong answer the biased judge always passes."""

BASELINE_MIX = (0.4, 0.3, 0.15, 0.15)  # a true pass rate of 70 %
DROPPED_MIX = (0.3, 0.2, 0.25, 0.25)  # 50 %: a 20-point drop

JUDGES = ("consistent", "biased", "random-0.1", "random-0.3", "random-0.5")


def flip_rate(judge: str) -> float:
    return float(judge.split("-")[1]) if judge.startswith("random-") else 0.0


def verdicts(judge: str, answers: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """The judge's verdicts (True: PASS) on ``answers`` (indices into :data:`ANSWERS`, any
    shape), ``samples`` independent calls each: shape ``answers.shape + (samples,)``."""
    truth = np.broadcast_to(RIGHT[answers][..., None], (*answers.shape, samples))
    if judge == "consistent":
        return truth.copy()
    if judge == "biased":
        return truth | (answers == LENIENT)[..., None]
    return truth ^ (rng.random(truth.shape) < flip_rate(judge))


def one_verdict(judge: str, answer: int, draw: random.Random) -> bool:
    """One call of the judge (the server's): :func:`verdicts` for a single answer."""
    truth = bool(RIGHT[answer])
    if judge == "consistent":
        return truth
    if judge == "biased":
        return truth or answer == LENIENT
    return truth != (draw.random() < flip_rate(judge))


_JUDGED = re.compile(r"<<<\n(.*?)\n>>>", re.S)


@contextmanager
def judge_server(judge: str, seed: int) -> Iterator[dict[str, Any]]:
    """An OpenAI-compatible judge on a free port of 127.0.0.1; yields ``{"api_base", "calls"}``.
    Its noise comes from one ``random.Random(seed)`` (fresh per call, whatever seed is sent)."""
    draw = random.Random(seed)

    def reply(prompt: str, key: str) -> str:
        found = _JUDGED.search(prompt)
        text = found.group(1) if found else ""
        answer = ANSWERS.index(text) if text in ANSWERS else 3
        passed = one_verdict(judge, answer, draw)
        return f"VERDICT: {'PASS' if passed else 'FAIL'}\nREASON: scripted"

    with _serve(reply) as state:
        yield state


@contextmanager
def _serve(reply: Callable[[str, str], str]) -> Iterator[dict[str, Any]]:
    """An OpenAI-compatible server on a free port of 127.0.0.1 answering ``reply(prompt,
    bearer key)`` (called under one lock); yields ``{"api_base", "calls"}``."""
    lock = threading.Lock()
    state: dict[str, Any] = {"calls": 0}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            with lock:
                state["calls"] += 1
                content = reply(body["messages"][-1]["content"], key)
            payload = json.dumps(
                {
                    "id": "j",
                    "object": "chat.completion",
                    "created": 1,
                    "model": "judge",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 50, "completion_tokens": 6, "total_tokens": 56},
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
        thread.join(timeout=5)


# The pairwise judge (issue 35, item 4): which of two answers to one input is better.

QUALITY = np.array([2, 3, 1, 0])
"""How good each of :data:`ANSWERS` is: the whole sentence best, "I do not know." worst."""

AA_PAIR_MIX = BASELINE_MIX
A_PAIR_MIX = (1.0, 0.0, 0.0, 0.0)
"""Variant A of a power night: always "Paris."."""
B_PAIR_MIX = (0.3, 0.7, 0.0, 0.0)
"""Variant B: the better sentence on 70 % of inputs, "Paris." (as good as A's) on the rest."""

PAIRWISE_JUDGES = ("consistent", "first-0.3", "first-0.6", "noisy-0.3", "noisy-0.6")
FIRST, SECOND, TIE = 0, 1, 2


def _rate(judge: str) -> float:
    return float(judge.split("-")[1]) if "-" in judge else 0.0


def preferences(
    judge: str, q_first: np.ndarray, q_second: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """The judge's choices (:data:`FIRST`, :data:`SECOND`, :data:`TIE`) between answers of
    qualities ``q_first`` (shown first) and ``q_second``, one independent call each:

    * ``consistent``: the better answer; a tie when they are as good;
    * ``first-F``: the first-shown answer with probability F whatever they say, else as
      ``consistent`` (on two equally good answers it prefers the first F of the time);
    * ``noisy-F``: with probability F one of the three at random, else as ``consistent``.
    """
    truth = np.where(q_first > q_second, FIRST, np.where(q_first < q_second, SECOND, TIE))
    hit = rng.random(truth.shape) < _rate(judge)
    if judge.startswith("first-"):
        return np.where(hit, FIRST, truth)
    if judge.startswith("noisy-"):
        return np.where(hit, rng.integers(0, 3, truth.shape), truth)
    return truth


_SHOWN = re.compile(r"<<<\n(.*?)\n>>>", re.S)


@contextmanager
def pairwise_server(judge: str, seed: int) -> Iterator[dict[str, Any]]:
    """A pairwise judge (:func:`preferences`) on 127.0.0.1; yields ``{"api_base", "calls",
    "questions"}`` (the pairs of answers it was asked about, first-shown first).
    ``echo-key`` answers no preference but its API key (a judge that leaks it); ``first-1.0``
    always the first-shown answer."""
    rng = np.random.default_rng(seed)
    questions: list[tuple[str, str]] = []

    def reply(prompt: str, key: str) -> str:
        if judge == "echo-key":
            return f"I will not choose. Authorization: Bearer {key}"
        shown = _SHOWN.findall(prompt)
        if len(shown) != 2:  # not a pairwise question (a reachability probe): any answer
            return "ok"
        questions.append((shown[0], shown[1]))
        quality = [int(QUALITY[ANSWERS.index(t)]) if t in ANSWERS else 0 for t in shown]
        choice = int(preferences(judge, np.array(quality[:1]), np.array(quality[1:]), rng)[0])
        return f"PREFERENCE: {('1', '2', 'TIE')[choice]}\nREASON: scripted"

    with _serve(reply) as state:
        state["questions"] = questions
        yield state


AGENT = f"""
import random

ANSWERS = {list(ANSWERS)!r}


def answer(ctx):
    mix = [float(w) for w in ctx.params["mix"].split(",")]
    text = ANSWERS[random.Random(ctx.seed).choices(range(len(ANSWERS)), weights=mix)[0]]
    steps = [
        {{"step_id": 1, "source": "user", "message": ctx.input}},
        {{"step_id": 2, "source": "agent", "message": text}},
    ]
    return {{"schema_version": "ATIF-v1.7", "session_id": "s",
            "agent": {{"name": "repeats", "version": "1"}}, "steps": steps}}
"""
"""A callable agent that repeats one of :data:`ANSWERS`, drawn from its run seed by the
weights of its ``mix`` parameter."""
