"""Judged criteria in a batch, against a scripted judge (an OpenAI-compatible stub on
127.0.0.1, reached through litellm): a random judge is flagged unstable and a consistent one is
not; runs with one answer are judged independently (issue 35); a judge that fails leaves the
run a harness_error; the judge's calls never enter the agent's columns (issue 25)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import pipeline, store
from trajguard.comparison import UNSTABLE_JUDGE_DISAGREEMENT, compare_runsets
from trajguard.errors import SuiteError
from trajguard.judge import sample_seed
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

_STUB = Path(__file__).resolve().parents[1] / "reliability" / "provider_stub.py"
_spec = importlib.util.spec_from_file_location("trajguard_provider_stub", _STUB)
assert _spec is not None and _spec.loader is not None
stub: Any = sys.modules.get(_spec.name) or importlib.util.module_from_spec(_spec)
if _spec.name not in sys.modules:
    sys.modules[_spec.name] = stub  # its dataclasses look their module up there
    _spec.loader.exec_module(stub)

AGENT = """
def answer(ctx):
    text = ctx.params.get("answer") or f"Paris (run seed {ctx.seed})"
    metrics = {"prompt_tokens": 40, "completion_tokens": 8}
    steps = [
        {"step_id": 1, "source": "user", "message": ctx.input},
        {"step_id": 2, "source": "agent", "message": text, "metrics": metrics},
    ]
    return {"schema_version": "ATIF-v1.7", "session_id": "s",
            "agent": {"name": "judged", "version": "1"}, "steps": steps}
"""


@pytest.fixture(autouse=True)
def importable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's module, importable as ``judged_agent`` (for the suite and the runs)."""
    (tmp_path / "judged_agent.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "judged_agent", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-stub-judge")  # the stub checks none; litellm wants one


@pytest.fixture
def judge() -> Iterator[Any]:
    with stub.faulty_provider() as provider:
        yield provider


def verdicts(provider: Any, replies: list[str]) -> None:
    provider.then(*[stub.Fault(kind="ok", reply=r) for r in replies])


PROBE = "VERDICT: FAIL\nREASON: nothing to grade"


def probed(samples: int) -> list[str]:
    """The replies to the batch's probe of its judge, sent before the first run: ``samples``
    verdicts on the empty answer, then as many on the off-topic one."""
    return [PROBE] * (2 * samples)


def make_suite(
    tmp_path: Path,
    judge_api: str,
    *,
    samples: int,
    answer: str = "",
    extra: str = "",
    runs: int = 10,
    defaults: str = "",
) -> Any:
    params = f", params: {{answer: {json.dumps(answer)}}}" if answer else ""
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: judged\ndefaults: {{runs: {runs}, concurrency: 1{defaults}}}\nscenarios:\n"
        f"  - id: capital\n    agent: {{kind: callable, function: judged_agent:answer{params}}}\n"
        "    input: What is the capital of France?\n    pass:\n"
        f"      - judge: {{rubric: 'The answer names Paris.', model: openai/judge, "
        f"api_base: {json.dumps(judge_api)}, samples: {samples}, temperature: 0.7}}\n{extra}"
    )
    return load_suite(path)


async def batch(tmp_path: Path, suite: Any, name: str = "rs") -> Any:
    await run_batch(
        suite,
        tmp_path / name,
        BatchOptions(seed=7),
        make_model=lambda _: Scripted(lambda m, o: "ok"),
    )
    return store.read_runs(tmp_path / name).sort_values("run_index", ignore_index=True)


async def test_a_random_judge_is_flagged_unstable(tmp_path: Path, judge: Any) -> None:
    draw = random.Random(25)
    coins = [f"VERDICT: {draw.choice(['PASS', 'FAIL'])}\nREASON: coin" for _ in range(30)]
    verdicts(judge, probed(3) + coins)
    runs = await batch(tmp_path, make_suite(tmp_path, judge.api_base, samples=3))
    assert len(judge.seen) == 6 + 30  # the probe, then 10 runs of 3 samples (seeds all differ)
    (found,) = compare_runsets(runs, runs).judges[1:]  # the candidate side
    assert (found.side, found.scenario, found.samples, found.runs) == (
        "candidate",
        "capital",
        3,
        10,
    )
    assert found.disagreement > UNSTABLE_JUDGE_DISAGREEMENT and found.unstable
    assert found.noise_share is not None and found.noise_share > 0.5


async def test_a_consistent_judge_is_not_flagged(tmp_path: Path, judge: Any) -> None:
    replies = ["VERDICT: PASS\nREASON: names Paris"] * 15 + ["**FAIL** — no city"] * 15
    verdicts(judge, probed(3) + replies)  # runs 0-4 pass three times, runs 5-9 fail three times
    runs = await batch(tmp_path, make_suite(tmp_path, judge.api_base, samples=3))
    assert runs["passed"].tolist() == [True] * 5 + [False] * 5
    (found,) = compare_runsets(runs, runs).judges[1:]
    assert (found.disagreement, found.disagreeing_runs, found.unstable) == (0.0, 0, False)
    assert found.noise_share == 0.0 and found.verdict_pass_rate == 0.5
    assert (
        "judge: the judge passed 0 of 3 verdicts, majority needed (no city)"
        in runs["failed_criteria"][9][0]
    )


async def test_the_judges_calls_are_kept_apart_from_the_agents(tmp_path: Path, judge: Any) -> None:
    runs = await batch(tmp_path, make_suite(tmp_path, judge.api_base, samples=2, runs=1))
    row = runs.iloc[0]
    # the agent's step used 40 + 8 tokens; the judge's call (10 + 2 tokens, the stub's) is in
    # judge_calls only
    assert (row["llm_calls"], row["prompt_tokens"], row["completion_tokens"]) == (1, 40, 8)
    assert row["step_count"] == 2 == len(json.loads(row["trajectory"])["steps"])
    (record,) = json.loads(row["judge_calls"])
    assert record["criterion"] == 'judge: "The answer names Paris."'
    assert record["held"] is None  # the stub's default answer "ok" is no verdict
    assert [s["prompt_tokens"] for s in record["samples"]] == [10]  # stopped at the first


async def test_runs_with_one_answer_are_judged_independently(tmp_path: Path, judge: Any) -> None:
    replies = ["VERDICT: PASS\nREASON: yes", "VERDICT: FAIL\nREASON: no"] * 4
    verdicts(judge, probed(2) + replies)
    suite = make_suite(tmp_path, judge.api_base, samples=2, answer="Paris.", runs=4)
    runs = await batch(tmp_path, suite)
    asked = judge.seen[4:]  # after the probe
    assert len(asked) == 8  # four runs, one answer: each run judged on its own (issue 35)
    records = [json.loads(r)[0] for r in runs["judge_calls"]]
    assert [r["cached"] for r in records] == [False] * 4
    first = asked[0].body
    assert "Paris." in first["messages"][-1]["content"]
    assert first["temperature"] == 0.7
    seeds = [s.body["seed"] for s in asked]
    assert len(set(seeds)) == 8  # no two requests alike: no provider can answer two runs as one
    plan_seeds = sorted(int(s) for s in runs["seed"])
    assert sorted(seeds) == sorted(sample_seed(s, i) for s in plan_seeds for i in range(2))


async def test_an_unparseable_verdict_is_a_harness_error(tmp_path: Path, judge: Any) -> None:
    verdicts(judge, probed(1) + ["I would rather not say."] * 3)
    runs = await batch(tmp_path, make_suite(tmp_path, judge.api_base, samples=1, runs=3))
    assert runs["status"].tolist() == ["harness_error"] * 3
    assert runs["passed"].isna().all() and runs["error_type"].tolist() == ["judge_failed"] * 3
    assert "answered no PASS/FAIL verdict: 'I would rather not say.'" in runs["error_message"][0]
    (entry,) = runs["criteria"][0]
    assert entry["held"] is None and entry["reason"].startswith("not judged: ")


async def test_an_unreachable_judge_is_a_harness_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_wait(seconds: float) -> None:
        pass

    monkeypatch.setattr("trajguard.capture._llm._sleep", no_wait)
    with stub.faulty_provider() as gone:
        api_base = gone.api_base  # stopped: nothing listens there any more
    runs = await batch(tmp_path, make_suite(tmp_path, api_base, samples=3, runs=2))
    assert runs["status"].tolist() == ["harness_error"] * 2
    assert "the judge openai/judge failed" in runs["error_message"][0]


async def test_a_failed_criterion_decides_despite_a_failed_judge(
    tmp_path: Path, judge: Any
) -> None:
    extra = "      - final_output_contains: Berlin\n"
    runs = await batch(
        tmp_path, make_suite(tmp_path, judge.api_base, samples=1, extra=extra, runs=2)
    )
    assert runs["status"].tolist() == ["ok", "ok"]  # fails on Berlin whatever the judge says
    assert runs["passed"].tolist() == [False, False]
    assert [e["held"] for e in runs["criteria"][0]] == [None, False]


async def test_a_judge_that_never_answers_is_bounded_by_the_runs_timeout(
    tmp_path: Path, judge: Any
) -> None:
    judge.then(*[stub.Fault(kind="hang", hang_s=90) for _ in range(8)])
    suite = make_suite(tmp_path, judge.api_base, samples=3, runs=2, defaults=", timeout_s: 2")
    began = time.monotonic()
    runs = await batch(tmp_path, suite)
    took = time.monotonic() - began
    judge.release.set()  # let the stub's handler threads go
    # each attempt of the judge's client would wait 120 s and be retried (issue 35): the run's
    # 2 s bound it; 60 s leaves a loaded machine room and is far below one such attempt
    assert took < 60, took
    assert runs["status"].tolist() == ["harness_error"] * 2
    assert runs["error_type"].tolist() == ["judge_failed"] * 2  # never the agent's crash
    assert runs["crashed"].isna().all()
    assert "did not answer within the run's 2 s timeout" in runs["error_message"][0]


async def test_a_judge_echoing_its_key_never_puts_it_in_the_run_set(
    tmp_path: Path, judge: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "judge-key-0123456789abcdef-not-a-pattern"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    judge.then(
        stub.Fault(kind="echo_key"),  # the probe's empty answer: 401 quoting the key
        stub.Fault(kind="ok", reply=f"VERDICT: FAIL\nREASON: your key {key} is wrong"),
        stub.Fault(kind="echo_key"),  # run 0: 401 quoting the key
        stub.Fault(kind="ok", reply=f"VERDICT: FAIL\nREASON: your key {key} is wrong"),  # run 1
    )
    extra = "      - final_output_contains: Berlin\n"  # fails: failed_criteria is written
    suite = make_suite(tmp_path, judge.api_base, samples=1, runs=2, extra=extra)
    runs = await batch(tmp_path, suite)
    sent = {name.lower(): value for name, value in judge.seen[2].headers.items()}
    assert len(judge.seen) == 4 and sent["authorization"] == f"Bearer {key}"
    (probe,) = store.read_manifest(tmp_path / "rs")["judge_probes"]
    assert "REDACTED" in probe["probes"][0]["error"]
    assert any("REDACTED" in " ".join(f) for f in runs["failed_criteria"])
    for path in sorted((tmp_path / "rs").rglob("*")):
        if not path.is_file():
            continue
        if path.suffix == ".parquet":
            text = str(pq.read_table(path).to_pylist())
        else:
            text = path.read_bytes().decode("utf-8", errors="replace")
        assert key not in text, path


async def test_an_observer_is_told_the_judgements_in_flight(tmp_path: Path, judge: Any) -> None:
    verdicts(judge, probed(2) + ["VERDICT: PASS\nREASON: yes"] * 6)

    class Watcher:
        def __init__(self) -> None:
            self.seen: list[int] = []

        def start(self, total: int, skipped: int, interrupted: int) -> None:
            pass

        def update(self, row: Any) -> None:
            pass

        def judging(self, active: int) -> None:
            self.seen.append(active)

    watcher = Watcher()
    suite = make_suite(tmp_path, judge.api_base, samples=2, runs=3)
    await run_batch(
        suite,
        tmp_path / "rs",
        BatchOptions(seed=7),
        make_model=lambda _: Scripted(lambda m, o: "ok"),
        observer=watcher,
    )
    assert watcher.seen == [1, 0] * 3  # one run at a time: each judged, then done


async def test_a_judge_that_passes_the_empty_answer_is_named_in_the_headline(
    tmp_path: Path, judge: Any
) -> None:
    verdicts(judge, ["VERDICT: PASS\nREASON: fine"] * (6 + 9))  # the probe, 3 runs of 3
    suite = make_suite(tmp_path, judge.api_base, samples=3, runs=3)
    result = await run_batch(
        suite, tmp_path / "rs", BatchOptions(seed=7), make_model=lambda _: Scripted(lambda m, o: "")
    )
    assert result.warnings == (
        'judge: "The answer names Paris." (openai/judge) passed the empty answer and the '
        "off-topic answer before the batch: it may pass answers it never read (the report "
        "names it: Judge that cannot judge)",
    )
    (record,) = store.read_manifest(tmp_path / "rs")["judge_probes"]
    assert (record["criterion"], record["scenarios"], record["embedded"]) == (
        'judge: "The answer names Paris."',
        ["capital"],
        False,
    )
    assert record["probes"] == [
        {"answer": name, "verdicts": ["PASS"] * 3, "passed": True, "error": None}
        for name in ("empty", "off-topic")
    ]
    assert "(empty: there was no final output)" in str(judge.seen[0].body["messages"])
    assert "The museum opens at nine" in str(judge.seen[3].body["messages"])
    outcome = pipeline.compare(tmp_path / "rs", tmp_path / "rs", report=tmp_path / "r.md")
    headline = (tmp_path / "r.md").read_text().split("\n## ")[0]
    (line,) = [x for x in headline.splitlines() if "Judge that cannot judge" in x]
    assert "(openai/judge) passed an empty answer (baseline, candidate) and an off-topic " in line
    assert len(outcome.comparison.judge_probes) == 4  # two answers, two sides


async def test_a_batch_started_under_the_earlier_samples_default_says_so_on_resume(
    tmp_path: Path, judge: Any
) -> None:
    verdicts(judge, probed(1) + ["VERDICT: PASS\nREASON: yes"] * 2)
    # `samples: 1` said hashes as the unset default did before it became 3
    await batch(tmp_path, make_suite(tmp_path, judge.api_base, samples=1, runs=2))
    runset = tmp_path / "rs"
    store.write_runs_table(runset / "runs.parquet", store.read_table(runset).slice(0, 1))
    path = tmp_path / "suite.yaml"
    path.write_text(path.read_text().replace(", samples: 1", ""))
    with pytest.raises(SuiteError) as info:
        await run_batch(load_suite(path), runset, BatchOptions(), resume=True)
    assert "was started when a judge criterion's `samples` defaulted to 1" in str(info.value)
    assert "add `samples: 1` to its judge criteria" in str(info.value)
    path.write_text(path.read_text().replace("temperature: 0.7", "temperature: 0.5"))
    with pytest.raises(SuiteError, match="changed since this batch started"):
        await run_batch(load_suite(path), runset, BatchOptions(), resume=True)


async def test_a_run_on_a_ray_worker_tells_its_judgements_in_flight(
    tmp_path: Path, judge: Any
) -> None:
    """What a Ray worker runs (``_remote.run_job``, without Ray): the run's count of
    judgements in flight goes to the driver's counter as the local executor's goes to the
    progress line."""
    from trajguard.runner import plan_batch
    from trajguard.runner._executors._jobs import decode_row, encode_job
    from trajguard.runner._executors._remote import run_job
    from trajguard.runner._provenance import new_manifest

    verdicts(judge, ["VERDICT: PASS\nREASON: yes"] * 2)
    suite = make_suite(tmp_path, judge.api_base, samples=2, runs=1)
    options = BatchOptions(seed=7)
    plan = plan_batch(suite, options, batch_seed=7)
    ((spec, arm),) = plan
    told: list[tuple[str, int]] = []
    job = encode_job(spec, arm, new_manifest(suite, options, plan, 7))
    row = decode_row(await asyncio.to_thread(run_job, job, {}, "node", lambda *t: told.append(t)))
    assert told == [(spec.run_id, 1), (spec.run_id, 0)]
    assert row["passed"] is True and len(judge.seen) == 2


RAY_WORKER = """
import asyncio, json, sys, time
import ray
from trajguard.runner._executors import _ray_worker

job, out = open(sys.argv[1]).read(), sys.argv[2]
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
counter = ray.remote(_ray_worker.JudgingCounter).options(num_cpus=0).remote()
task = ray.remote(_ray_worker.run_job).options(num_cpus=1)

async def main():
    ref = task.remote(job, {}, counter)  # the driver's call (_ray_driver._Driver._run)
    seen = []
    while not ray.wait([ref], timeout=0)[0]:
        seen.append(int(await counter.total.remote()))  # the driver's read (_relay_judging)
        await asyncio.sleep(0.1)
    row = json.loads(await ref)
    for _ in range(300):  # the worker's last word (fire and forget) reaches the counter
        seen.append(int(await counter.total.remote()))
        if seen[-1] == 0:
            break
        await asyncio.sleep(0.1)
    with open(out, "w") as f:
        json.dump({"seen": seen, "error_type": row.get("error_type"),
                   "error_message": row.get("error_message")}, f)

asyncio.run(main())
ray.shutdown()
"""


@pytest.mark.ray
def test_a_run_on_a_real_ray_worker_counts_its_judgement_on_the_drivers_counter(
    tmp_path: Path, judge: Any
) -> None:
    """The worker's function as a Ray task (a local Ray runtime in a process of its own, as
    the driver runs): its judgement in flight (a judge that never answers, bounded by the run's
    20 s: room for a loaded machine to start the task and reach the judge) is on the counter
    while it lasts, and gone after."""
    import subprocess

    from trajguard.runner import plan_batch
    from trajguard.runner._executors._jobs import encode_job
    from trajguard.runner._provenance import new_manifest

    judge.then(stub.Fault(kind="hang", hang_s=120))
    suite = make_suite(tmp_path, judge.api_base, samples=1, runs=1, defaults=", timeout_s: 20")
    options = BatchOptions(seed=7)
    plan = plan_batch(suite, options, batch_seed=7)
    ((spec, arm),) = plan
    (tmp_path / "job.json").write_text(encode_job(spec, arm, new_manifest(suite, options, plan, 7)))
    # HOME apart: a local ray.init() writes ~/.ray/auth_token, which the user's (and the other
    # tests') clusters would then demand
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
        "HOME": str(tmp_path / "home"),
    }
    subprocess.run(
        [sys.executable, "-c", RAY_WORKER, str(tmp_path / "job.json"), str(tmp_path / "out")],
        env=env,
        check=True,
        timeout=600,
        capture_output=True,
    )
    judge.release.set()
    result = json.loads((tmp_path / "out").read_text())
    assert result["error_type"] == "judge_failed"  # the run's 20 s bound the judge
    assert "did not answer within the run's 20 s timeout" in result["error_message"]
    assert len(judge.seen) == 1  # the worker reached the judge on 127.0.0.1
    assert 1 in result["seen"] and result["seen"][-1] == 0, result["seen"]
