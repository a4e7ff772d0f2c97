"""`trajguard report comparison.json` on a hostile document (issue 41): 200,000 levels deep, a
FIFO, over the size limit: exit 2 naming the file and the limit, no traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trajguard.cli import main


def _run(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["report", str(path), "--out", str(path.parent / "out"), "--no-plots"])
    return code, capsys.readouterr().err


def test_a_document_200000_levels_deep_exits_2(tmp_path: Path, capsys) -> None:
    source = tmp_path / "comparison.json"
    source.write_text('{"schema_version": 1, "x": ' + "[" * 200_000 + "]" * 200_000 + "}")
    code, err = _run(source, capsys)
    assert code == 2
    assert f"{source}: $: the document is nested more than 256 levels deep" in err
    assert "$TRAJGUARD_MAX_JSON_DEPTH" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_fifo_exits_2_without_waiting(tmp_path: Path, capsys) -> None:
    source = tmp_path / "comparison.json"
    os.mkfifo(source)
    code, err = _run(source, capsys)
    assert code == 2 and "is a FIFO (named pipe), not a regular file" in err


def test_a_document_over_the_size_limit_exits_2(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "comparison.json"
    source.write_text('{"schema_version": 1}' + " " * 5000)
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", "4096")
    code, err = _run(source, capsys)
    assert code == 2 and "more than the 4,096 trajguard reads" in err


SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "sample-nightly" / "comparison.json"


def _first(data: object, key: str, path: str = "$") -> tuple[dict[str, object], str] | None:
    """The first mapping (depth first) holding ``key`` with a number, and its JSON path."""
    if isinstance(data, dict):
        if isinstance(data.get(key), int | float) and not isinstance(data.get(key), bool):
            return data, f"{path}.{key}"
        for k, v in data.items():
            found = _first(v, key, f"{path}.{k}")
            if found:
                return found
    if isinstance(data, list):
        for i, v in enumerate(data):
            found = _first(v, key, f"{path}[{i}]")
            if found:
                return found
    return None


def test_the_committed_sample_holds_no_impossible_value(tmp_path: Path, capsys) -> None:
    source = tmp_path / "comparison.json"
    source.write_text(SAMPLE.read_text())
    code, err = _run(source, capsys)
    assert code == 0, err


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        (
            "baseline_pass_rate",
            1e300,
            "1e+300 is no probability (a rate or p-value lies in [0, 1])",
        ),
        ("p_value", -3, "-3 is no probability (a rate or p-value lies in [0, 1])"),
        ("n", 10**15, "1000000000000000 is no count of runs (0 to 1,000,000,000)"),
        ("n", -1, "-1 is no count of runs (0 to 1,000,000,000)"),
    ],
)
def test_a_schema_valid_document_with_impossible_values_exits_2(
    tmp_path: Path, capsys, key: str, value: float, problem: str
) -> None:
    import json

    data = json.loads(SAMPLE.read_text())
    found = _first(data["comparison"]["scenarios"], key, "$.comparison.scenarios")
    assert found is not None
    holder, path = found
    holder[key] = value
    source = tmp_path / "comparison.json"
    source.write_text(json.dumps(data))
    code, err = _run(source, capsys)
    assert code == 2
    assert f"1 impossible value(s): {path}: {problem}" in err
    assert "render the report again from the run sets" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
