"""`export`: one ATIF file per run, read back by trajguard's loader and judged by Harbor; names
made safe, nothing written outside the directory. `diff`: volatile fields make no difference,
a tool change shows as a shape delta first."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from trajguard_testkit.runsets import make_row, write_runset

from trajguard.atif import load_trajectory, validate
from trajguard.runs import RunFilter, diff_runs, export_file_name, export_runs

HARBOR_MISSING = (
    "Harbor is not installed: with a Python >= 3.12, python3.12 -m venv .harbor-venv && "
    ".harbor-venv/bin/pip install harbor (.ci/run does this)"
)
REPO = Path(__file__).resolve().parents[2]
HARBOR_PYTHON = REPO / ".harbor-venv" / "bin" / "python"
HARBOR_SIDE = REPO / "benchmarks" / "_atif_harbor.py"


def test_export_writes_one_valid_atif_file_per_run(small_runset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = export_runs(small_runset, out)
    assert result.without_trajectory == ("greeting/terse/2",)
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [f"capital__base__{i}.json" for i in range(6)]
        + [f"greeting__terse__{i}.json" for i in range(2)]
    )
    for path in result.written:
        assert validate(path).valid, path
        loaded = load_trajectory(path)
        assert loaded.session_id == path.stem.replace("__", "/")
    calls = [
        c.function_name
        for s in load_trajectory(out / "capital__base__2.json").steps
        for c in s.tool_calls or ()
    ]
    assert calls == ["lookup_country", "calculator"]


def test_export_takes_the_same_filters(small_runset: Path, tmp_path: Path) -> None:
    result = export_runs(small_runset, tmp_path / "out", RunFilter(criterion="tool_not_called"))
    assert sorted(p.name for p in result.written) == [
        "capital__base__3.json",
        "capital__base__4.json",
    ]


def test_export_names_are_safe_and_stay_inside_the_directory(tmp_path: Path) -> None:
    rows = [make_row("../../etc", 0, []), make_row("a/b", 0, [], variant=".hidden")]
    runset = write_runset(tmp_path / "rs", rows)
    out = tmp_path / "deep" / "out"
    result = export_runs(runset, out)
    assert len(result.written) == 2
    for path in result.written:
        assert path.parent == out and not path.name.startswith(".")
    assert sorted(os.listdir(tmp_path)) == ["deep", "rs"]
    assert export_file_name("a b", "base", 3) != export_file_name("a_b", "base", 3)
    assert export_file_name("capital", "base", 3) == "capital__base__3.json"


def test_export_into_a_file_is_refused(small_runset: Path, tmp_path: Path) -> None:
    from trajguard.errors import StoreError

    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(StoreError, match="not a directory"):
        export_runs(small_runset, target)


def test_harbor_validates_the_exported_files(small_runset: Path, tmp_path: Path) -> None:
    if not HARBOR_PYTHON.exists():
        # CI makes .harbor-venv (.ci/run) and sets TRAJGUARD_REQUIRE_FRAMEWORKS: there, a
        # missing Harbor fails this test instead of skipping it
        if os.environ.get("TRAJGUARD_REQUIRE_FRAMEWORKS"):
            pytest.fail(
                f"{HARBOR_PYTHON} is missing (make it: python benchmarks/atif_conformance.py)"
            )
        pytest.skip(HARBOR_MISSING)
    result = export_runs(small_runset, tmp_path / "out")
    listing = tmp_path / "files.txt"
    listing.write_text("\n".join(str(p) for p in result.written), encoding="utf-8")
    done = subprocess.run(
        [str(HARBOR_PYTHON), str(HARBOR_SIDE), "validate", str(listing)],
        capture_output=True,
        text=True,
        cwd=HARBOR_SIDE.parent,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    verdicts = json.loads(done.stdout)
    assert len(verdicts) == len(result.written) == 8
    assert all(v["valid"] for v in verdicts.values()), verdicts


def test_runs_that_differ_only_in_volatile_fields_do_not_differ(tmp_path: Path) -> None:
    first = make_row("capital", 0, ["lookup_country"], session="aaa", stamp="2026-12-01T10:00:00Z")
    second = make_row("capital", 1, ["lookup_country"], session="bbb", stamp="2027-01-02T03:04:05Z")
    runset = write_runset(tmp_path / "rs", [first, second])
    exported = export_runs(runset, tmp_path / "out").written
    result = diff_runs(f"{runset}:capital/base/0", f"{runset}:capital/base/1")
    assert result.same and result.deltas == () and result.text == ""
    files = diff_runs(str(exported[0]), str(exported[1]))
    assert files.same, files.text


def test_a_tool_change_shows_as_a_shape_delta_first(tmp_path: Path) -> None:
    rows = [make_row("w", 0, ["lookup_country"]), make_row("w", 1, ["get_weather"])]
    runset = write_runset(tmp_path / "rs", rows)
    result = diff_runs(f"{runset}:w/base/0", f"{runset}:w/base/1")
    assert not result.same
    assert result.deltas[0].field == "tool_calls" and result.deltas[0].kind == "structure"
    assert result.deltas[0].golden == ("lookup_country",)
    assert any(a.startswith("- agent: lookup_country(") for a in result.aligned)
    assert any(a.startswith("+ agent: get_weather(") for a in result.aligned)
    assert '-          "function_name": "lookup_country"' in result.text
