"""comparison.json beside every report — compare, nightly and ab under every design — validates
against the schema shipped in the package, and `trajguard report` renders the same report from
it again, byte for byte, without the run sets."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from trajguard import pipeline
from trajguard.cli import main
from trajguard.results import SCHEMA_FILE, ReportKind, document_schema, read_document
from trajguard.runner import BatchOptions

pytestmark = pytest.mark.live

AGENT = """
import os
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    broken = ctx.variant == "broken" or os.environ.get("TG_BREAK") == "1"
    good = not broken and ctx.seed % 10 < 7
    ctx.recorder.agent_step(LLMResponse(content="391" if good else "no idea"))
    return None
"""

SUITE = """
name: tiny
defaults: {runs: 12, concurrency: 2}
variants:
  broken: {}
scenarios:
  - id: one
    agent: {kind: callable, function: "json_agent:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
  - id: two
    agent: {kind: callable, function: "json_agent:agent"}
    input: And 23 * 17?
    pass: [{final_output_contains: "391"}]
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("json")
    (root / "json_agent.py").write_text(AGENT)
    (root / "suite.yaml").write_text(SUITE)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.syspath_prepend(str(root))
        pipeline.run(Path("suite.yaml"), options=BatchOptions(runs=24, seed=7), out=Path("base"))
        pipeline.promote(Path("base"), baselines=Path("baselines"))
    return root


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    shipped = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(shipped)
    return jsonschema.Draft202012Validator(shipped)


def test_the_shipped_schema_is_the_one_the_types_give():
    """A changed result type changes the schema: regenerate the shipped file with
    ``python tests/pipeline/test_comparison_json.py`` and review the diff."""
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == document_schema()


def _only_report(folder: Path) -> Path:
    (report,) = [p for p in folder.iterdir() if p.suffix == ".md"]
    return report


def _in(project: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    for key, value in env.items():
        monkeypatch.setenv(key, value)


Job = Callable[[Path], tuple[int, Path]]


def _nightly(*extra: str) -> Job:
    def job(reports: Path) -> tuple[int, Path]:
        code = main(["nightly", "suite.yaml", "--reports", str(reports), "--no-progress", *extra])
        (day,) = reports.iterdir()
        return code, day

    return job


def _ab(*extra: str) -> Job:
    def job(reports: Path) -> tuple[int, Path]:
        args = ["ab", "suite.yaml", "--variant", "base", "--variant", "broken", "--runs", "12"]
        code = main([*args, "--reports", str(reports), "--no-progress", *extra])
        (day,) = reports.iterdir()
        return code, day

    return job


def _compare(reports: Path) -> tuple[int, Path]:
    pipeline.run(Path("suite.yaml"), options=BatchOptions(runs=12, seed=3), out=reports / "cand")
    code = main(
        [
            "compare",
            "baselines/tiny",
            str(reports / "cand"),
            "--report",
            str(reports / "c" / "report.md"),
        ]
    )
    return code, reports / "c"


CASES: dict[str, tuple[Job, ReportKind, str, dict[str, str]]] = {
    "compare": (_compare, ReportKind.COMPARE, "fixed", {}),
    "nightly": (_nightly(), ReportKind.NIGHTLY, "fixed", {"TG_BREAK": "1"}),
    "nightly-sequential": (
        _nightly("--sequential", "--runs", "24"),
        ReportKind.NIGHTLY,
        "sequential",
        {"TG_BREAK": "1"},
    ),
    "nightly-escalation": (
        _nightly("--runs", "12", "--max-runs", "24"),
        ReportKind.NIGHTLY,
        "escalation",
        {},
    ),
    "ab": (_ab(), ReportKind.AB, "fixed", {}),
    "ab-sequential": (_ab("--sequential"), ReportKind.AB, "sequential", {}),
    "ab-escalation": (_ab("--max-runs", "24"), ReportKind.AB, "escalation", {}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_comparison_json_validates_and_renders_the_same_report_again(
    name: str,
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    validator: jsonschema.Draft202012Validator,
) -> None:
    job, kind, design, env = CASES[name]
    _in(project, monkeypatch, env)
    reports = Path(f"reports-{name}")
    shutil.rmtree(reports, ignore_errors=True)
    code, folder = job(reports)
    source = folder / "comparison.json"
    text = source.read_text(encoding="utf-8")
    validator.validate(json.loads(text))
    document = read_document(text, file=source)
    assert document.kind is kind
    assert document.design.name == design
    # The exit code the command returned is the document's one exit rule.
    assert code == document.exit_code
    if kind is ReportKind.AB:
        assert code == 0 and document.ab is not None
    original = _only_report(folder)
    assert main(["report", str(source), "--out", str(tmp_path / "again")]) == 0
    again = tmp_path / "again"
    assert (again / original.name).read_bytes() == original.read_bytes()
    assert (again / "comparison.json").read_bytes() == source.read_bytes()
    for plot in document.plots.values():
        assert (again / plot).read_bytes() == (folder / plot).read_bytes()
    # Without the run sets: nothing the re-render read lives outside the document.
    for runs in folder.glob("runs"):
        shutil.rmtree(runs)
    assert main(["report", str(source), "--out", str(tmp_path / "third"), "--no-plots"]) == 0
    assert (tmp_path / "third" / original.name).read_bytes() == original.read_bytes()


def test_a_broken_comparison_json_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "comparison.json"
    bad.write_text('{"schema_version": 1, "kind": "nightly"}\n')
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "comparison.json" in err and "Traceback" not in err
    assert not (tmp_path / "report.md").exists()
    (tmp_path / "folder").mkdir()
    assert main(["report", str(tmp_path / "folder")]) == 2
    assert "not a regular file" in capsys.readouterr().err
    wrong = tmp_path / "old.json"
    wrong.write_text('{"schema_version": 999}\n')
    assert main(["report", str(wrong)]) == 2
    assert "schema" in capsys.readouterr().err.lower()


if __name__ == "__main__":
    SCHEMA_FILE.write_text(
        json.dumps(document_schema(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
