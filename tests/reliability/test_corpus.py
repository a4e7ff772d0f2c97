"""Every case of the bad-input corpus ends cleanly: its exit code, its message, no traceback,
nothing written that should not be (cases.yaml; corpus.py makes their files)."""

from __future__ import annotations

import importlib.util
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


def test_the_corpus_is_big_enough() -> None:
    assert len(CASES) >= 100


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_ends_cleanly(case: Any, cli: Any, tmp_path: Path, monkeypatch) -> None:
    corpus.materialise(case, tmp_path)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    result = cli(*case.argv, cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == case.exit, output
    assert "Traceback" not in output
    for fragment in case.stderr:
        assert fragment in result.stderr, f"{fragment!r} not in stderr:\n{result.stderr}"
    for fragment in case.stdout:
        assert fragment in result.stdout, f"{fragment!r} not in stdout:\n{result.stdout}"
    for path in case.absent:
        assert not (tmp_path / path).exists(), f"{path} was written"
