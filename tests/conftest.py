"""Shared builders of hand-built ATIF trajectories.

pytest runs with ``--import-mode=importlib``, so test modules cannot import a helper module;
the builders are exposed as session-scoped fixtures that return factory callables (safe to use
from hypothesis tests too).
"""

from __future__ import annotations

import copy
import random
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# The run every core test starts from; the numbers below are what its shape must report.
SYSTEM_PROMPT = (
    "You are a researcher. In scope: helper=<function helper at 0x7f3c2a1b9d00>, "
    "store=<__main__.Store object at 0x10fe2b3c4>"
)
FINAL_ANSWER = "The answer is 42."
_REPR_ADDRESS = re.compile(r"(<[^<>\n]*? at )0x[0-9a-fA-F]+(>)")


def _checker_a() -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "sess-7f1e",
        "trajectory_id": "traj-child-aaa",
        "agent": {"name": "checker-a", "version": "1.0.0"},
        "steps": [
            {
                "step_id": 1,
                "timestamp": "2025-01-01T10:00:03Z",
                "source": "user",
                "message": "Check the arithmetic",
            },
            {
                "step_id": 2,
                "timestamp": "2025-01-01T10:00:04Z",
                "source": "agent",
                "message": "Checking",
                "tool_calls": [
                    {
                        "tool_call_id": "toolu_01AxQ",
                        "function_name": "calculator",
                        "arguments": {"expr": "6*7"},
                    }
                ],
                "observation": {"results": [{"source_call_id": "toolu_01AxQ", "content": "42"}]},
                "metrics": {
                    "prompt_tokens": 30,
                    "completion_tokens": 5,
                    "cached_tokens": 0,
                    "cost_usd": 0.0001,
                },
                "extra": {"generation_id": "gen-a-0001"},
            },
            {
                "step_id": 3,
                "timestamp": "2025-01-01T10:00:05Z",
                "source": "agent",
                "message": "Arithmetic ok",
                "metrics": {"prompt_tokens": 40, "completion_tokens": 4, "cost_usd": 0.0001},
                "extra": {"generation_id": "gen-a-0002"},
            },
        ],
        "final_metrics": {
            "total_prompt_tokens": 70,
            "total_completion_tokens": 9,
            "total_cost_usd": 0.0002,
        },
    }


def _checker_b() -> dict[str, Any]:
    grandchild = {
        "session_id": "sess-7f1e",
        "trajectory_id": "traj-gc-111",
        "agent": {"name": "verifier", "version": "1.0.0"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "Verify"},
            {
                "step_id": 2,
                "timestamp": "2025-01-01T10:00:08Z",
                "source": "agent",
                "message": "Verified against the arithmetic check",
                "observation": {
                    "results": [
                        {
                            "content": "see the sibling check",
                            # a ref to an embedded trajectory of an ancestor (the root's child)
                            "subagent_trajectory_ref": [{"trajectory_id": "traj-child-aaa"}],
                        }
                    ]
                },
                "metrics": {"prompt_tokens": 5, "completion_tokens": 1, "cost_usd": 0.00001},
            },
        ],
    }
    return {
        "session_id": "sess-7f1e",
        "trajectory_id": "traj-child-bbb",
        "agent": {"name": "checker-b", "version": "1.0.0"},
        "steps": [
            {
                "step_id": 1,
                "timestamp": "2025-01-01T10:00:06Z",
                "source": "user",
                "message": "Check the source",
            },
            {
                "step_id": 2,
                "timestamp": "2025-01-01T10:00:07Z",
                "source": "agent",
                "message": "Looking it up",
                "tool_calls": [
                    {
                        "tool_call_id": "toolu_01BzR",
                        "function_name": "search",
                        "arguments": {"q": "multiplication table"},
                    }
                ],
                "observation": {
                    "results": [{"source_call_id": "toolu_01BzR", "content": "6 x 7 = 42"}]
                },
                "metrics": {"prompt_tokens": 20, "completion_tokens": 6, "cached_tokens": 5},
                "extra": {"generation_id": "gen-b-0001"},
            },
            {
                "step_id": 3,
                "timestamp": "2025-01-01T10:00:09Z",
                "source": "agent",
                "message": "Source ok",
                "observation": {
                    "results": [
                        {
                            "content": "verified",
                            "subagent_trajectory_ref": [{"trajectory_id": "traj-gc-111"}],
                        }
                    ]
                },
                "metrics": {"prompt_tokens": 25, "completion_tokens": 3},
            },
        ],
        "subagent_trajectories": [grandchild],
    }


def build_run() -> dict[str, Any]:
    """A complete v1.7 run: system/user/agent steps, parallel tool calls, nested subagents.

    Known facts (asserted by the shape tests):
      root steps 5: system, user, agent(1), agent(2), agent(1); final output FINAL_ANSWER.
      tool calls in order: search, read_file, delegate (root), calculator (checker-a),
      search (checker-b); checker-a sorts before checker-b by content.
      subagents 3 (checker-a, checker-b, and checker-b's verifier).
      tokens over the whole tree: prompt 450+70+45+5 = 570, completion 60+9+9+1 = 79,
      cached 60+0+5 = 65.
    Subagents are embedded in the order checker-b, checker-a (completion order), not sorted.
    """
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "sess-7f1e",
        "trajectory_id": "traj-root-01",
        "agent": {
            "name": "researcher",
            "version": "1.0.0",
            "model_name": "gpt-test",
            "tool_definitions": [
                {
                    "type": "function",
                    "function": {
                        "name": "search",
                        "description": "Search the web",
                        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
                    },
                }
            ],
        },
        "steps": [
            {
                "step_id": 1,
                "timestamp": "2025-01-01T10:00:00Z",
                "source": "system",
                "message": SYSTEM_PROMPT,
            },
            {
                "step_id": 2,
                "timestamp": "2025-01-01T10:00:01Z",
                "source": "user",
                "message": "What is 6 * 7?",
            },
            {
                "step_id": 3,
                "timestamp": "2025-01-01T10:00:02.123456+00:00",
                "source": "agent",
                "model_name": "gpt-test",
                "message": "Let me look that up.",
                "reasoning_content": "Two lookups in parallel.",
                "tool_calls": [
                    {
                        "tool_call_id": "call_3hfgfv2c",
                        "function_name": "search",
                        "arguments": {"q": "6*7"},
                    },
                    {
                        "tool_call_id": "call_9zzq1bxy",
                        "function_name": "read_file",
                        "arguments": {"path": "/data/notes.txt"},
                    },
                ],
                "observation": {
                    "results": [
                        {"source_call_id": "call_3hfgfv2c", "content": "42"},
                        {"source_call_id": "call_9zzq1bxy", "content": "notes: multiply"},
                    ]
                },
                "metrics": {
                    "prompt_tokens": 100,
                    "completion_tokens": 20,
                    "cached_tokens": 10,
                    "cost_usd": 0.0012,
                },
                "llm_call_count": 1,
                "extra": {"generation_id": "gen-root-0001"},
            },
            {
                "step_id": 4,
                "timestamp": "2025-01-01T10:00:10Z",
                "source": "agent",
                "message": "Delegating the checks.",
                "tool_calls": [
                    {
                        "tool_call_id": "call_k2j4h5ab",
                        "function_name": "delegate",
                        "arguments": {"task": "check"},
                    }
                ],
                "observation": {
                    "results": [
                        {
                            "source_call_id": "call_k2j4h5ab",
                            "content": "both checks passed",
                            "subagent_trajectory_ref": [
                                {"trajectory_id": "traj-child-bbb", "session_id": "sess-7f1e"}
                            ],
                        },
                        {"subagent_trajectory_ref": [{"trajectory_id": "traj-child-aaa"}]},
                    ]
                },
                "metrics": {
                    "prompt_tokens": 150,
                    "completion_tokens": 30,
                    "cached_tokens": 50,
                    "cost_usd": 0.002,
                },
                "llm_call_count": 2,
                "extra": {"generation_id": "gen-root-0002"},
            },
            {
                "step_id": 5,
                "timestamp": "2025-01-01T10:00:11Z",
                "source": "agent",
                "message": FINAL_ANSWER,
                "metrics": {
                    "prompt_tokens": 200,
                    "completion_tokens": 10,
                    "cached_tokens": 0,
                    "cost_usd": 0.001,
                },
                "llm_call_count": 1,
                "extra": {"generation_id": "gen-root-0003"},
            },
        ],
        "final_metrics": {
            "total_prompt_tokens": 450,
            "total_completion_tokens": 60,
            "total_cached_tokens": 60,
            "total_cost_usd": 0.0042,
            "total_steps": 5,
        },
        "subagent_trajectories": [_checker_b(), _checker_a()],
    }


def build_minimal(*steps: dict[str, Any], **root: Any) -> dict[str, Any]:
    """A small valid v1.7 trajectory; ``steps`` get sequential step_ids unless they carry one."""
    if not steps:
        steps = (
            {"source": "user", "message": "hi"},
            {"source": "agent", "message": "hello"},
        )
    numbered = [
        {"step_id": index, **copy.deepcopy(step)} for index, step in enumerate(steps, start=1)
    ]
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "tiny", "version": "0.1"},
        "steps": numbered,
        **copy.deepcopy(root),
    }


def perturb(traj: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A copy of ``traj`` as a second identical run would record it.

    Every volatile field gets a new value: session ids (those of refs renamed consistently),
    trajectory ids (renamed consistently in every ref), step timestamps, extra.generation_id,
    cost_usd, total_cost_usd, tool-call ids (renamed consistently in every source_call_id),
    object-repr addresses; subagent order is shuffled at every level. Nothing else changes.
    """
    out = copy.deepcopy(traj)
    used: set[str] = set()
    traj_ids: dict[str, str] = {}
    call_ids: dict[str, str] = {}
    ref_sessions: dict[str, str] = {}

    def fresh(prefix: str) -> str:
        while True:
            value = f"{prefix}{rng.getrandbits(48):012x}"
            if value not in used:
                used.add(value)
                return value

    def renamed(table: dict[str, str], old: str, prefix: str) -> str:
        if old not in table:
            table[old] = fresh(prefix)
        return table[old]

    def timestamp() -> str:
        return (
            f"20{rng.randint(20, 39)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}."
            f"{rng.randint(0, 999_999):06d}+00:00"
        )

    def address(match: re.Match[str]) -> str:
        return f"{match.group(1)}0x{rng.getrandbits(44) | (1 << 40):x}{match.group(2)}"

    def strings(value: Any) -> Any:
        if isinstance(value, str):
            return _REPR_ADDRESS.sub(address, value)
        if isinstance(value, dict):
            return {k: strings(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strings(v) for v in value]
        return value

    def tree(node: dict[str, Any]) -> None:
        if "session_id" in node:
            node["session_id"] = fresh("sess-")
        if node.get("trajectory_id") is not None:
            node["trajectory_id"] = renamed(traj_ids, node["trajectory_id"], "traj-")
        for step in node.get("steps", []):
            step["timestamp"] = timestamp()
            if isinstance(step.get("extra"), dict) and "generation_id" in step["extra"]:
                step["extra"]["generation_id"] = fresh("gen-")
            if isinstance(step.get("metrics"), dict) and "cost_usd" in step["metrics"]:
                step["metrics"]["cost_usd"] = rng.random()
            for call in step.get("tool_calls") or []:
                call["tool_call_id"] = renamed(call_ids, call["tool_call_id"], "call_")
            for result in (step.get("observation") or {}).get("results", []):
                if result.get("source_call_id") is not None:
                    result["source_call_id"] = renamed(call_ids, result["source_call_id"], "call_")
                for ref in result.get("subagent_trajectory_ref") or []:
                    if ref.get("trajectory_id") is not None:
                        ref["trajectory_id"] = renamed(traj_ids, ref["trajectory_id"], "traj-")
                    if "session_id" in ref:  # a join key: renamed consistently
                        ref["session_id"] = renamed(ref_sessions, ref["session_id"], "sess-")
        final = node.get("final_metrics")
        if isinstance(final, dict) and "total_cost_usd" in final:
            final["total_cost_usd"] = rng.random() * 10
        children = node.get("subagent_trajectories")
        if children:
            for child in children:
                tree(child)
            rng.shuffle(children)

    tree(out)
    return strings(out)


def _from_litellm_client_cache(unraisable: Any) -> bool:
    frame = unraisable.exc_traceback
    while frame is not None:
        if "litellm/caching/" in frame.tb_frame.f_code.co_filename:
            return True
        frame = frame.tb_next
    return False


@pytest.fixture(scope="session", autouse=True)
def _litellm_cached_clients_closed_by_gc() -> Iterator[None]:
    """litellm keeps the HTTP clients of its in-process calls (a judge's, a model's) in a cache
    and drops them unclosed when it evicts them; the garbage collector then warns of their
    sockets in whichever test happens to be running. Only those warnings are dropped (their
    stack goes through litellm's cache): every other unraisable still fails its test."""
    forward = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, ResourceWarning) and _from_litellm_client_cache(
            unraisable
        ):
            return
        forward(unraisable)

    sys.unraisablehook = hook
    yield
    sys.unraisablehook = forward


@pytest.fixture(scope="session")
def make_trajectory() -> Callable[[], dict[str, Any]]:
    """Factory: a fresh copy of the complete hand-built run (see ``build_run``)."""
    return build_run


@pytest.fixture(scope="session")
def make_minimal_trajectory() -> Callable[..., dict[str, Any]]:
    """Factory: ``make_minimal_trajectory(*steps, **root_fields)`` (see ``build_minimal``)."""
    return build_minimal


@pytest.fixture(scope="session")
def perturb_volatile() -> Callable[[dict[str, Any], random.Random], dict[str, Any]]:
    """Factory: ``perturb_volatile(traj, rng)`` re-records every volatile field (``perturb``)."""
    return perturb


@pytest.fixture(scope="session")
def local_model() -> Any:
    """The embedded SmolLM2 server (``trajguard.local_model``), started once per session.

    ``LiteLLMModel("local/smollm2")`` uses the same process-wide server; it is stopped at the
    end of the session if this fixture started it.
    """
    from trajguard.local_model import local_model_server

    with local_model_server() as server:
        yield server


@dataclass(frozen=True)
class CliResult:
    """What ``trajguard ARGS`` did, run in-process."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., CliResult]]:
    """``cli(*args, cwd=PATH)`` runs ``trajguard ARGS`` in this process, through
    ``trajguard.cli.main``, from ``cwd``. What the command line may change in its own process
    (``sys.path`` for suite modules, modules it imported from the test's directory, litellm's
    feedback banner) is put back afterwards."""
    import sys

    from trajguard.cli import main

    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    litellm = sys.modules.get("litellm")
    banner = getattr(litellm, "suppress_debug_info", False)

    def run(*args: str, cwd: Path) -> CliResult:
        monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "argv", ["trajguard", *args])
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse: usage errors (2) and --help / --version (0)
            code = exit_.code if isinstance(exit_.code, int) else 2
        out, err = capsys.readouterr()
        return CliResult(returncode=code, stdout=out, stderr=err)

    yield run
    for name in set(sys.modules) - before:
        module = sys.modules.get(name)
        if module is not None and str(getattr(module, "__file__", "")).startswith(
            str(Path(tempfile.gettempdir()))
        ):
            del sys.modules[name]  # a suite's module from this test's directory
    if "litellm" in sys.modules:
        sys.modules["litellm"].suppress_debug_info = banner
