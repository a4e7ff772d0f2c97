"""Every case of the bad-input corpus ends cleanly: its exit code, its message, no traceback,
nothing written that should not be, no control character where it must not be (cases.yaml;
corpus.py makes their files). A case that would hang if it regressed runs as a subprocess with
a deadline, so the regression fails this test instead of holding the test session."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

_spec = importlib.util.spec_from_file_location(
    "trajguard_corpus", Path(__file__).with_name("corpus.py")
)
assert _spec is not None and _spec.loader is not None
corpus: Any = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = corpus  # dataclasses look their module up there
_spec.loader.exec_module(corpus)
CASES = corpus.load_cases()
DEADLINE_S = 180.0
"""A subprocess case that has not ended by then hangs (the slowest take a few seconds)."""


def test_the_corpus_is_big_enough() -> None:
    assert len(CASES) >= 100


def _in_subprocess(case: Any, api_base: str | None, root: Path) -> tuple[int, str, str]:
    try:
        done = subprocess.run(
            corpus.command_for(case, sys.executable, api_base),
            cwd=root,
            capture_output=True,
            text=True,
            timeout=DEADLINE_S,
            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **case.env},
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case.id}: no answer within {DEADLINE_S:g} s (a hang)")
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_ends_cleanly(case: Any, cli: Any, tmp_path: Path, monkeypatch) -> None:
    corpus.materialise(case, tmp_path)
    with corpus.provider_for(case, sys.modules["trajguard_provider_stub"]) as api_base:
        argv = corpus.argv_for(case, api_base)
        if case.subprocess or case.runner != "trajguard":
            returncode, stdout, stderr = _in_subprocess(case, api_base, tmp_path)
        else:
            for key, value in case.env.items():
                monkeypatch.setenv(key, value)
            result = cli(*argv, cwd=tmp_path)
            returncode, stdout, stderr = result.returncode, result.stdout, result.stderr
    output = stdout + stderr
    assert returncode == case.exit, output
    assert "Traceback" not in output
    for fragment in case.stderr:
        assert fragment in stderr, f"{fragment!r} not in stderr:\n{stderr}"
    for fragment in case.stdout:
        assert fragment in stdout, f"{fragment!r} not in stdout:\n{stdout}"
    for path in case.absent:
        assert not (tmp_path / path).exists(), f"{path} was written"
    for name, fragment in case.file_has.items():
        assert fragment in (tmp_path / name).read_text(encoding="utf-8"), (
            f"{fragment!r} not in {name}"
        )
    assert corpus.unclean_outputs(case, tmp_path, stdout, stderr) == []
