"""Run a composite GitHub Action's steps as a runner does: each `run:` step in
``bash --noprofile --norc -eo pipefail`` with its `env:` evaluated, $GITHUB_OUTPUT read back
into the `steps` context, `if:` conditions of the forms the action uses, `uses:` steps recorded
(with their `with:` evaluated) rather than run."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class ActionRun:
    exit_code: int
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uploads: list[dict[str, str]] = field(default_factory=list)
    log: str = ""


def _evaluate(text: str, context: dict[str, Any]) -> str:
    def lookup(match: re.Match[str]) -> str:
        parts = match.group(1).split(".")
        if parts[0] == "steps" and len(parts) == 4:  # an output never set reads as ''
            return str(context["steps"].get(parts[1], {}).get("outputs", {}).get(parts[3], ""))
        value: Any = context
        for part in parts:
            value = value[part]  # a KeyError: an expression this runner does not support
        return "" if value is None else str(value)

    return EXPRESSION.sub(lookup, text)


def _condition(expression: str, context: dict[str, Any]) -> bool:
    """A step's ``if:``, as far as this action uses them: ``always()`` and ``X != ''`` joined
    by ``&&`` (anything else fails the test)."""
    result = True
    for term in (t.strip() for t in expression.split("&&")):
        if term == "always()":
            continue
        found = re.fullmatch(r"([\w.-]+) != ''", term)
        assert found, f"this runner does not evaluate {term!r}"
        result = result and _evaluate("${{ " + found.group(1) + " }}", context) != ""
    return result


def run_action(
    action_file: Path, project: Path, given: dict[str, str], env: dict[str, str]
) -> ActionRun:
    """Run ``action_file``'s steps as a runner would, in ``project`` with inputs ``given``."""
    action = yaml.safe_load(action_file.read_text())
    temp = project / "runner-temp"
    temp.mkdir(exist_ok=True)
    context: dict[str, Any] = {
        "github": {
            "action_path": str(action_file.parent),
            "token": "",
            "repository": "octo/agent",
            "event": {"pull_request": {"number": ""}},
        },
        "runner": {"temp": str(temp)},
        "steps": {},
    }
    inputs = {
        name: given.get(name, _evaluate(str(spec.get("default", "")), context))
        for name, spec in action["inputs"].items()
    }
    assert set(given) <= set(inputs), "an input the action does not declare"
    context["inputs"] = inputs
    done = ActionRun(exit_code=0)
    for index, step in enumerate(action["runs"]["steps"]):
        if "if" in step and not _condition(step["if"], context):
            continue
        if "uses" in step:
            if "setup-python" not in step["uses"]:
                with_ = {k: _evaluate(str(v), context) for k, v in step["with"].items()}
                done.uploads.append({"uses": step["uses"], **with_})
            continue
        outputs = temp / f"output-{index}"
        outputs.write_text("")
        script = temp / f"step-{index}.sh"
        script.write_text(step["run"])
        step_env = {k: _evaluate(str(v), context) for k, v in step.get("env", {}).items()}
        ran = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=project,
            env={**env, **step_env, "GITHUB_OUTPUT": str(outputs), "RUNNER_TEMP": str(temp)},
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        done.log += f"--- {step.get('name')}\n{ran.stdout}{ran.stderr}"
        values = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if line)
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": values}
            done.outputs[step["id"]] = values
        if ran.returncode != 0:
            done.exit_code = ran.returncode
            break
    return done
