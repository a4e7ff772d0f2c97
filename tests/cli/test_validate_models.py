"""A model string naming no provider (a near-miss of ``local/smollm2``) is refused by `validate`
and by `run` before anything starts: exit 2, a "did you mean", no model started, no run set
(issue 41: ``--model local/smollm3`` passed `validate`, then failed 1 min 28 s into the batch
with "LLM Provider NOT provided … check the request parameters the agent sends")."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings("ignore:Items? .* the `ReadOnly` qualifier:UserWarning")

SUITE = """\
name: models
defaults: {{runs: 1, model: {model}}}
scenarios:
  - id: a
    agent: {{kind: callable, function: agent_41:run}}
    input: hi
    pass:
      - judge: {{rubric: "says hi", model: {judge}}}
    variants:
      other: {{model: {variant}}}
"""
GOOD = "local/smollm2"
STARTS_MODEL = ("starting the embedded model", "self-test of the embedded model", "checking that")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "agent_41.py").write_text("def run(ctx):\n    return 'hi'\n")
    return tmp_path


def _write(folder: Path, model: str = GOOD, judge: str = GOOD, variant: str = GOOD) -> None:
    text = SUITE.format(model=model, judge=judge, variant=variant)
    (folder / "suite.yaml").write_text(text)


def test_validate_refuses_each_misspelt_model_where_it_is_written(folder: Path, cli) -> None:
    _write(folder, model="local/smollm3", judge="local/smolm2", variant="opanai/gpt-4o")
    result = cli("validate", "suite.yaml", cwd=folder)
    assert result.returncode == 2
    err = result.stderr
    assert "suite.yaml: 3 problems" in err
    assert (
        "suite.yaml:2: defaults.model: model 'local/smollm3' names no provider litellm knows; "
        "did you mean 'local/smollm2' (the embedded model)?"
    ) in err
    assert "suite.yaml:8: scenarios[0].pass[0]: scenario 'a': model 'local/smolm2'" in err
    assert "suite.yaml:10: scenarios[0].variants.other.model: scenario 'a': model" in err
    assert "did you mean 'openai/gpt-4o'?" in err
    assert "\x1b" not in err + result.stdout and "Traceback" not in err


def test_validate_accepts_strings_litellm_knows(folder: Path, cli) -> None:
    _write(folder, variant="ollama_chat/qwen2.5:1.5b", judge="openai/gpt-4o-mini")
    result = cli("validate", "suite.yaml", cwd=folder)
    assert result.returncode == 0, result.stderr
    assert "valid suite models" in result.stdout


@pytest.mark.parametrize("where", ["--model", "suite"])
def test_run_refuses_before_anything_starts(folder: Path, cli, where: str) -> None:
    _write(folder, model="local/smollm3" if where == "suite" else GOOD)
    extra = ["--model", "local/smollm3"] if where == "--model" else []
    result = cli("run", "suite.yaml", "--out", "runs/x", *extra, cwd=folder)
    assert result.returncode == 2
    assert "did you mean 'local/smollm2' (the embedded model)?" in result.stderr
    assert not any(step in result.stderr for step in STARTS_MODEL), result.stderr
    assert not (folder / "runs").exists()
    assert "Traceback" not in result.stderr
