"""No raw control character on any stream (issue 41): run sets whose scenario name, tool name,
criterion and model output carry ESC, BEL and C1 characters, through `compare` (with its plots
and the store of nights), `report`, `show`, `show --run`, `runs` and `trend`, as subprocesses so
that what matplotlib and the warnings module write reaches the captured stderr as it would a
terminal. A glyph warning used to print "Glyph 27 (<raw ESC>) missing" with a source path."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from trajguard_testkit.runsets import make_row, write_runset

HOSTILE = "\x1b[31mred\x1b]0;title\x07\x9b2J"
"""ESC sequences (colour, window title), BEL and a C1 CSI."""
SRC = Path(__file__).resolve().parents[2] / "src"


def _runsets(tmp_path: Path) -> tuple[Path, Path]:
    criteria = [{"final_output_contains": f"Canberra{HOSTILE}"}]

    def rows(passing: bool) -> list[dict[str, object]]:
        final = f"The capital is Canberra{HOSTILE}." if passing else f"Sydney{HOSTILE}"
        return [
            make_row(name, index, [f"lookup{HOSTILE}"], final, criteria=criteria)
            for name in (f"capital{HOSTILE}", "plain")
            for index in range(4)
        ]

    return write_runset(tmp_path / "base", rows(True)), write_runset(tmp_path / "cand", rows(False))


def _raw_controls(data: bytes) -> list[str]:
    """The control characters in ``data``: bytes 0x00-0x1f but newline and tab, DEL, and the
    C1 characters U+0080-U+009F (as characters: their bytes in UTF-8 are also continuation
    bytes of ordinary text such as '…')."""
    found = {f"\\x{b:02x}" for b in data if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F}
    text = data.decode("utf-8", "replace")
    found |= {f"\\u{ord(c):04x}" for c in text if 0x80 <= ord(c) <= 0x9F}
    return sorted(found)


def _trajguard(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "trajguard.cli", *args], cwd=cwd, env=env, capture_output=True
    )


def test_no_command_writes_a_raw_control_character(tmp_path: Path) -> None:
    _runsets(tmp_path)
    commands = [
        ("compare", "base", "cand", "--report", "r/report.md", "--store", "nights"),
        ("report", "r/comparison.json", "--out", "again"),
        ("show", "cand"),
        ("show", "cand", "--run", f"capital{HOSTILE}/base/1"),
        ("runs", "cand"),
        ("trend", "nights"),
    ]
    for command in commands:
        result = _trajguard(tmp_path, *command)
        assert result.returncode in (0, 1), (command, result.stderr.decode(errors="replace"))
        for name, data in (("stdout", result.stdout), ("stderr", result.stderr)):
            assert _raw_controls(data) == [], (command, name, data.decode(errors="replace"))
        assert b"Traceback" not in result.stderr
        assert b"Glyph" not in result.stderr, command
    # the names are there, escaped, and the figure was drawn
    shown = _trajguard(tmp_path, "show", "cand").stdout.decode()
    assert "\\x1b[31mred" in shown  # (rich may wrap the rest of the name)
    assert any((tmp_path / "r" / "plots").glob("*.png"))


def test_the_glyph_filter_leaves_the_users_warning_filters_as_they_were(tmp_path: Path) -> None:
    from trajguard.report.builders import _plots

    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        label = _plots._label(f"capital{HOSTILE}", 90)
        assert _raw_controls(label.encode()) == []
        figure = _plots._new_figure()
        figure.suptitle("日本語 \u0378")  # glyphs DejaVu Sans lacks: warned of, unfiltered
        figure.savefig(tmp_path / "x.png")
    assert any("missing from font" in str(w.message) for w in caught)
    assert warnings.filters == before


@pytest.mark.parametrize("name", [HOSTILE, "a" * 200])
def test_labels_are_escaped_and_cut(name: str) -> None:
    from trajguard.report.builders._plots import _label

    shown = _label(name, 18)
    assert len(shown) <= 18
    assert "\x1b" not in shown and "\x9b" not in shown
