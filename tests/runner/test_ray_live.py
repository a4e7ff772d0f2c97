"""The Ray executor with the real embedded model on a real multi-node Ray cluster: the demo suite
gives the local executor's runs for the same batch seed (token for token when one node runs
them one at a time); the embedded model runs on every node (``--ray-embedded-model node``) or is
this process's, reached at one address (``driver``); builtin, callable and command agents all
call it from the workers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trajguard import store

pytestmark = [pytest.mark.ray, pytest.mark.live]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "suites" / "demo.yaml"
TRAJGUARD = [sys.executable, "-m", "trajguard.cli"]
SEED = "20261201"

# Everything a run's row says about what the run did, and which run it was.
SAME = ["run_id", "scenario", "variant", "run_index", "model", "seed", "config_hash", "status",
        "passed", "crashed", "failed_criteria", "step_count", "llm_calls", "tool_sequence",
        "prompt_tokens", "completion_tokens", "content_hash", "final_output",
        "trajectory"]  # fmt: skip


def _run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TRAJGUARD, "run", *args], cwd=cwd, capture_output=True, text=True, timeout=1800
    )


def _rows(runset: Path) -> pd.DataFrame:
    return store.read_runs(runset).set_index("run_id", drop=False).sort_index()


def _raylets(cluster: Any) -> set[str]:
    """The raylets of the cluster's worker nodes still running (a test's own are stopped)."""
    return {str(node.raylet_pid()) for node in cluster.workers if node.alive}


@pytest.fixture(scope="module")
def local_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo suite on the local executor: 2 runs per scenario, one at a time."""
    out = tmp_path_factory.mktemp("demo") / "local"
    result = _run(str(DEMO), "--out", str(out), "--concurrency", "1", *DEMO_OPTIONS)
    assert result.returncode == 0, result.stderr[-3000:]
    return out


DEMO_OPTIONS = ["--runs", "2", "--seed", SEED, "--timeout", "900", "--no-progress"]


def test_the_demo_suite_on_a_ray_node_gives_the_local_batchs_rows_exactly(
    tmp_path: Path, ray_cluster: Any, spare_nodes: list[Any], local_demo: Path
) -> None:
    """One node, one run at a time: the node's model server sees the calls the local batch's
    server saw, in the same order, so every run is the same run, token for token."""
    spare_nodes.append(ray_cluster.add_node(resources={"solo": 1}))
    on_ray = _run(
        str(DEMO), "--executor", "ray", "--ray-address", ray_cluster.address,
        "--ray-resource", "solo=1", "--concurrency", "1", "--out", str(tmp_path / "ray"),
        *DEMO_OPTIONS,
    )  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    ray_rows, local_rows = _rows(tmp_path / "ray"), _rows(local_demo)
    assert len(ray_rows) == 8 and (ray_rows["status"] != "harness_error").all()
    pd.testing.assert_frame_equal(ray_rows[SAME], local_rows[SAME])


def test_the_demo_suite_across_ray_nodes_runs_the_local_batchs_runs(
    tmp_path: Path, ray_cluster: Any, local_demo: Path
) -> None:
    """Two nodes, two servers, runs in parallel: the same runs with the same seeds and
    configurations. Their tokens may differ: llama.cpp reuses the cached prefix of a server's
    previous prompt, so its floating-point results depend on what that server ran before —
    the runs are then equal in distribution (benchmarks/RESULTS.md, "Past one machine: Ray")."""
    on_ray = _run(
        str(DEMO), "--executor", "ray", "--ray-address", ray_cluster.address,
        "--out", str(tmp_path / "ray"), *DEMO_OPTIONS,
    )  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    ray_rows, local_rows = _rows(tmp_path / "ray"), _rows(local_demo)
    assert len(ray_rows) == 8 and (ray_rows["status"] != "harness_error").all()
    same_run = ["run_id", "scenario", "variant", "run_index", "model", "seed", "config_hash"]
    pd.testing.assert_frame_equal(ray_rows[same_run], local_rows[same_run])
    cluster = store.read_manifest(tmp_path / "ray")["executors"][0]["cluster"]
    servers = [node["embedded_model"] for node in cluster["nodes"] if node["runs_here"]]
    assert len(servers) == 2 and len(set(servers)) == 2, "a model server on each worker node"
    assert on_ray.stdout.split(" runs in ")[0] == "8"


# A command agent that calls the model at the address it is handed (the wire endpoint its Ray
# task opened on the worker), and says where it ran (its node's raylet) and which address it was.
ASKER = r"""
import json, os, sys, urllib.request
base = os.environ["TRAJGUARD_API_BASE"]
question = {"role": "user", "content": os.environ["TRAJGUARD_INPUT"]}
body = {"model": "smollm2", "max_tokens": 8, "seed": int(os.environ["TRAJGUARD_SEED"]),
        "messages": [question]}
request = urllib.request.Request(
    base + "/chat/completions", data=json.dumps(body).encode(),
    headers={"Content-Type": "application/json"},
)
with urllib.request.urlopen(request, timeout=300) as response:
    answer = json.load(response)["choices"][0]["message"]["content"]
steps = [{"step_id": 1, "source": "user", "message": os.environ["TRAJGUARD_INPUT"]},
         {"step_id": 2, "source": "agent",
          "message": os.environ.get("RAY_RAYLET_PID", "not-on-ray") + " " + base + " " + answer}]
trajectory = {"schema_version": "ATIF-v1.6", "session_id": "s", "steps": steps,
              "agent": {"name": "asker", "version": "1"}}
open(sys.argv[1], "w").write(json.dumps(trajectory))
"""

# A callable agent in a module next to the suite (the workers import it from there): it asks
# its model twice through ``ctx.model`` and records both answers.
CALLER = """
async def agent(ctx):
    ctx.recorder.user(ctx.input)
    messages = [{"role": "user", "content": ctx.input}]
    for turn in range(2):
        response = await ctx.model.complete(
            messages, max_tokens=16, temperature=ctx.temperature, seed=ctx.seed + turn
        )
        ctx.recorder.agent_step(response)
        messages += [response.to_assistant_message(), {"role": "user", "content": "And?"}]
    return None
"""

# A callable agent that reaches its model the way a framework does: the openai SDK pointed at
# ``ctx.base_url``, the wire endpoint the Ray task opens on its worker, which records the calls
# as the run's trajectory and forwards them to the run's model. It answers with the raylet of
# the node that ran it (every Ray worker's environment names it) and the endpoint it called.
WIRED = """
import os
import openai


def agent(ctx):
    messages = [{"role": "user", "content": ctx.input}]
    with openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0) as client:
        for turn in range(2):
            reply = client.chat.completions.create(
                model=ctx.model_name, messages=messages, max_tokens=16, seed=ctx.seed + turn
            )
            messages += [{"role": "assistant", "content": reply.choices[0].message.content or ""},
                         {"role": "user", "content": "And?"}]
    return f"{os.environ.get('RAY_RAYLET_PID', 'not-on-ray')} {ctx.base_url}"
"""

SUITE = """
name: embedded
defaults: {{runs: 2, timeout_s: 900, max_tokens: 16, max_steps: 3}}
scenarios:
  - id: asker
    agent: {{kind: command, argv: [{python}, asker.py, "{{output}}"]}}
    input: Name a colour.
  - id: multiply
    agent:
      kind: builtin
      tool_budget: 1
      system_prompt: Use the calculator for arithmetic.
      tools: [trajguard.examples.demo_tools:calculator]
    input: What is 17 * 23?
  - id: caller
    agent: {{kind: callable, function: "caller:agent"}}
    input: Name an animal.
  - id: wired
    agent: {{kind: callable, function: "wired:agent"}}
    input: Name a fruit.
"""


def _every_agent_called_the_model(rows: pd.DataFrame, workers: set[str]) -> None:
    """Each kind ran on the workers and called the model: the command agent (which answered),
    the callables imported from the suite's directory (two calls each: through ``ctx.model``,
    and through the openai SDK at the wire endpoint of the worker, which captured both calls
    as the trajectory), the builtin (SmolLM2 may run out of its 3 steps: an agent error is the
    agent's behaviour, a harness error would not be)."""
    assert len(rows) == 8 and (rows["status"] != "harness_error").all(), rows["error_message"]
    by = rows.groupby("scenario")
    assert set(by.get_group("asker")["status"]) == {"ok"}
    asked = [answer.split()[:2] for answer in by.get_group("asker")["final_output"]]
    assert {raylet for raylet, _ in asked} <= workers, (asked, workers)
    assert all(url.startswith("http://127.0.0.1:") and "/runs/" in url for _, url in asked)
    for callable_agent in ("caller", "wired"):
        assert set(by.get_group(callable_agent)["status"]) == {"ok"}
        assert (by.get_group(callable_agent)["llm_calls"] == 2).all()
    assert (by.get_group("multiply")["llm_calls"] >= 1).all()
    wired = by.get_group("wired")
    assert {json.loads(t)["extra"]["capture"] for t in wired["trajectory"]} == {"wire"}
    ran_on = {answer.split()[0] for answer in wired["final_output"]}
    assert ran_on <= workers, (ran_on, workers)
    assert all(
        answer.split()[1].startswith("http://127.0.0.1:") for answer in wired["final_output"]
    )


@pytest.fixture
def embedded_project(tmp_path: Path) -> Path:
    (tmp_path / "asker.py").write_text(ASKER)
    (tmp_path / "caller.py").write_text(CALLER)
    (tmp_path / "wired.py").write_text(WIRED)
    (tmp_path / "suite.yaml").write_text(SUITE.format(python=sys.executable))
    return tmp_path


def test_the_embedded_model_runs_on_every_node(
    embedded_project: Path, ray_cluster: Any, cli: Any
) -> None:
    result = cli(
        "run", "suite.yaml", "--executor", "ray", "--ray-address", ray_cluster.address,
        "--out", "rs", "--seed", SEED, "--no-progress", cwd=embedded_project,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = _rows(embedded_project / "rs")
    _every_agent_called_the_model(rows, _raylets(ray_cluster))
    (executor,) = store.read_manifest(embedded_project / "rs")["executors"]
    assert executor["settings"]["embedded_model"] == "node"
    servers = {n["embedded_model"] for n in executor["cluster"]["nodes"] if n["runs_here"]}
    assert len(servers) == 2, servers


def _completions(server: Any) -> int:
    """The chat completions a server has answered (its access log)."""
    return server.log_path.read_text().count('"POST /v1/chat/completions HTTP/1.1" 200')


def test_the_embedded_model_is_reached_at_the_drivers_address(
    embedded_project: Path, ray_cluster: Any, cli: Any, local_model: Any
) -> None:
    answered_before = _completions(local_model)
    result = cli(
        "run", "suite.yaml", "--executor", "ray", "--ray-address", ray_cluster.address,
        "--ray-embedded-model", "driver", "--out", "rs", "--seed", SEED, "--no-progress",
        cwd=embedded_project,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = _rows(embedded_project / "rs")
    _every_agent_called_the_model(rows, _raylets(ray_cluster))
    answered = _completions(local_model) - answered_before
    assert answered >= rows["llm_calls"].sum(), "every model call reached this process's server"
    (executor,) = store.read_manifest(embedded_project / "rs")["executors"]
    assert executor["settings"]["embedded_model"] == "driver"
    assert all(node["embedded_model"] is None for node in executor["cluster"]["nodes"])
