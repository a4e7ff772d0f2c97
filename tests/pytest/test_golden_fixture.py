"""The golden_trajectory fixture and --golden-update, driven through pytester."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

# A self-contained test module: builds a trajectory whose shape the tests can vary through
# environment variables, so the same test file can be run against a golden several times.
AGENT_TEST = """
import os

def build():
    extra_steps = int(os.environ.get("TG_EXTRA_STEPS", "0"))
    answer = os.environ.get("TG_ANSWER", "391")
    steps = [
        {"step_id": 1, "source": "user", "message": "What is 17 * 23?",
         "timestamp": "2026-01-01T00:00:00Z"},
        {"step_id": 2, "source": "agent", "message": "",
         "timestamp": os.environ.get("TG_TIME", "2026-01-01T00:00:01Z"),
         "tool_calls": [{"tool_call_id": os.environ.get("TG_CALL_ID", "call_abc"),
                         "function_name": "calculator", "arguments": {"expression": "17*23"}}],
         "observation": {"results": [{"source_call_id": os.environ.get("TG_CALL_ID", "call_abc"),
                                      "content": answer}]},
         "metrics": {"prompt_tokens": 50, "completion_tokens": 10}},
    ]
    for _ in range(extra_steps):
        steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "thinking",
                      "metrics": {"prompt_tokens": 60, "completion_tokens": 5}})
    steps.append({"step_id": len(steps) + 1, "source": "agent",
                  "message": "The answer is " + answer,
                  "metrics": {"prompt_tokens": 70, "completion_tokens": 8}})
    return {
        "schema_version": os.environ.get("TG_VERSION", "ATIF-v1.7"),
        "session_id": os.environ.get("TG_SESSION", "s-1"),
        "agent": {"name": "demo", "version": "1", "model_name": "local/smollm2"},
        "steps": steps,
    }

def test_agent(golden_trajectory):
    golden_trajectory(build())
"""


@pytest.fixture(autouse=True)
def _quiet_inner_sessions(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # The inner pytest sessions have no ini of ours; pytest-asyncio would warn about that.
    # (Set after pytester's own set-up, which clears PYTEST_ADDOPTS.)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:asyncio -p no:hypothesispytest -p no:cacheprovider")


@pytest.fixture
def agent_test(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_agent=AGENT_TEST)
    return pytester


def _golden(pytester: pytest.Pytester) -> Path:
    return pytester.path / "golden" / "test_agent" / "test_agent.json"


def _tree(root: Path) -> set[str]:
    ignored = {"__pycache__", ".pytest_cache"}
    return {
        str(p.relative_to(root))
        for p in root.rglob("*")
        if not ignored.intersection(p.relative_to(root).parts)
    }


def test_missing_golden_fails_and_says_how_to_create_it(agent_test: pytest.Pytester) -> None:
    before = _tree(agent_test.path)
    result = agent_test.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*golden file missing: *golden/test_agent/test_agent.json*",
            "*pytest test_agent.py::test_agent --golden-update*",
        ]
    )
    assert not _golden(agent_test).exists()
    assert _tree(agent_test.path) == before, "a normal run must not write any file"


def test_update_writes_canonical_golden_then_passes(agent_test: pytest.Pytester) -> None:
    result = agent_test.runpytest("--golden-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["*trajguard golden files*", "created: golden/test_agent/test_agent.json"]
    )
    text = _golden(agent_test).read_text()
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert "session_id" not in data
    assert "timestamp" not in text
    assert data["steps"][1]["tool_calls"][0]["tool_call_id"] == "call_1"
    agent_test.runpytest().assert_outcomes(passed=1)


def test_volatile_differences_still_pass(
    agent_test: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_test.runpytest("--golden-update").assert_outcomes(passed=1)
    monkeypatch.setenv("TG_TIME", "2030-05-05T05:05:05Z")
    monkeypatch.setenv("TG_CALL_ID", "call_3hfgfv2c")
    monkeypatch.setenv("TG_SESSION", "another-session")
    agent_test.runpytest().assert_outcomes(passed=1)


def test_mismatch_lists_shape_deltas_first_then_diff_then_command(
    agent_test: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_test.runpytest("--golden-update").assert_outcomes(passed=1)
    monkeypatch.setenv("TG_EXTRA_STEPS", "1")
    result = agent_test.runpytest()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    shape_at = out.index("Shape changes:")
    first_delta = out[shape_at:].splitlines()[1].strip()
    assert first_delta == "step_count: 3 → 4"
    assert out.index("Diff of the normalised trajectory") > shape_at
    assert '+      "message": "thinking",' in out
    assert out.index("pytest test_agent.py::test_agent --golden-update") > out.index("Diff of")
    assert "Traceback" not in out


def test_content_change_is_caught_by_final_output_and_hash(
    agent_test: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_test.runpytest("--golden-update").assert_outcomes(passed=1)
    monkeypatch.setenv("TG_ANSWER", "392")
    result = agent_test.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*final_output: 'The answer is 391' → 'The answer is 392'*", "*content_hash:*"]
    )


def test_schema_version_mismatch_asks_to_re_record(
    agent_test: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TG_VERSION", "ATIF-v1.6")
    agent_test.runpytest("--golden-update").assert_outcomes(passed=1)
    monkeypatch.setenv("TG_VERSION", "ATIF-v1.7")
    monkeypatch.setenv("TG_EXTRA_STEPS", "3")
    result = agent_test.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*golden recorded under ATIF-v1.6, running ATIF-v1.7: re-record*"])
    assert "Diff of the normalised trajectory" not in result.stdout.str()


def test_update_rewrites_and_reports_what_changed(
    agent_test: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent_test.runpytest("--golden-update").assert_outcomes(passed=1)
    monkeypatch.setenv("TG_EXTRA_STEPS", "2")
    result = agent_test.runpytest("--golden-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["updated: golden/test_agent/test_agent.json", "*step_count: 3 → 5*"]
    )
    assert len(json.loads(_golden(agent_test).read_text())["steps"]) == 5
    agent_test.runpytest().assert_outcomes(passed=1)


def test_update_leaves_a_matching_golden_untouched(agent_test: pytest.Pytester) -> None:
    agent_test.runpytest("--golden-update").assert_outcomes(passed=1)
    mtime = _golden(agent_test).stat().st_mtime_ns
    result = agent_test.runpytest("--golden-update")
    result.assert_outcomes(passed=1)
    assert "trajguard golden files" not in result.stdout.str()
    assert _golden(agent_test).stat().st_mtime_ns == mtime


def test_names_tolerances_and_golden_dir(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini("[pytest]\ntrajguard_golden_dir = snapshots\n")
    pytester.makepyfile(
        test_named="""
import os
def traj(tokens, message="hi"):
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": message,
                       "metrics": {"prompt_tokens": tokens, "completion_tokens": 1}}]}

def test_two(golden_trajectory):
    golden_trajectory(traj(100))
    golden_trajectory(traj(200))
    golden_trajectory(traj(int(os.environ.get("TG_TOKENS", "100")), os.environ.get("TG_MSG", "hi")),
                      name="live run",
                      token_tolerance=0.15, compare_content=False)
"""
    )
    pytester.runpytest("--golden-update").assert_outcomes(passed=1)
    folder = pytester.path / "snapshots" / "test_named"
    assert sorted(p.name for p in folder.iterdir()) == [
        "test_two.2.json",
        "test_two.json",
        "test_two.live_run.json",
    ]
    monkeypatch.setenv("TG_TOKENS", "110")
    monkeypatch.setenv("TG_MSG", "wording varies live")
    pytester.runpytest().assert_outcomes(passed=1)
    monkeypatch.setenv("TG_TOKENS", "130")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*prompt_tokens: 100 → 130*"])
    # The ini applies to the printed command too: it needs no --golden-dir.
    assert _printed_command(result.stdout.str()) == ["test_named.py::test_two", "--golden-update"]


def test_golden_dir_option_wins_over_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntrajguard_golden_dir = from_ini\n")
    pytester.makepyfile(test_agent=AGENT_TEST)
    pytester.runpytest("--golden-update", "--golden-dir=from_cli").assert_outcomes(passed=1)
    assert (pytester.path / "from_cli" / "test_agent" / "test_agent.json").exists()
    assert not (pytester.path / "from_ini").exists()


def _printed_command(out: str) -> list[str]:
    """The arguments of the ``pytest ... --golden-update`` command a failure printed."""
    lines = [line.strip() for line in out.splitlines() if line.strip().startswith("pytest ")]
    assert lines, out
    assert len(set(lines)) == 1, lines
    return shlex.split(lines[0])[1:]


@pytest.mark.parametrize(
    "args",
    [
        ["--golden-dir=snaps"],
        ["-o", "trajguard_golden_dir=snaps"],
        ["-c", "other.ini"],
    ],
    ids=["golden-dir", "override-ini", "ini-file"],
)
def test_printed_update_command_writes_where_the_run_reads(
    agent_test: pytest.Pytester, args: list[str]
) -> None:
    agent_test.makefile(".ini", other="[pytest]\ntrajguard_golden_dir = snaps\n")
    result = agent_test.runpytest(*args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*golden file missing: *snaps/test_agent/test_agent.json*"])
    command = _printed_command(result.stdout.str())
    assert command == ["test_agent.py::test_agent", "--golden-update", "--golden-dir=snaps"]
    agent_test.runpytest(*command).assert_outcomes(passed=1)  # exactly as printed
    assert (agent_test.path / "snaps" / "test_agent" / "test_agent.json").exists()
    assert not (agent_test.path / "golden").exists()
    agent_test.runpytest(*args).assert_outcomes(passed=1)


PARAMETRISED_TEST = """
import pytest

def traj(message):
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": message}]}

@pytest.mark.parametrize("value", ["a b", "a/b", "a_b", "a-1"])
def test_p(golden_trajectory, value):
    golden_trajectory(traj(value))
"""


def test_parametrize_ids_that_clean_alike_get_their_own_goldens(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_p=PARAMETRISED_TEST)
    result = pytester.runpytest("--golden-update")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["4 created, 0 updated: *"])
    names = sorted(p.name for p in (pytester.path / "golden" / "test_p").iterdir())
    assert len(names) == 4
    # Ids made of safe characters keep their readable names (committed goldens stay valid).
    assert "test_p_a_b.json" in names
    assert "test_p_a-1.json" in names
    hashed = [n for n in names if n not in ("test_p_a_b.json", "test_p_a-1.json")]
    assert all(n.startswith("test_p_a_b-") for n in hashed), hashed
    pytester.runpytest().assert_outcomes(passed=4)


def test_two_calls_sharing_a_golden_are_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_named="""
def traj(message):
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": message}]}

def test_named(golden_trajectory):
    golden_trajectory(traj("first"), name="2")
    golden_trajectory(traj("second"))  # numbered 2 as well
"""
    )
    result = pytester.runpytest("--golden-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "golden_trajectory: *golden/test_named/test_named.2.json is already the golden of "
            "call 1 (name='2') of this test",
            "*hint: give each call of golden_trajectory in a test its own name=",
        ]
    )
    result.stdout.fnmatch_lines(["created: golden/test_named/test_named.2.json"])
    assert "\nupdated:" not in result.stdout.str()
    golden = pytester.path / "golden" / "test_named" / "test_named.2.json"
    assert json.loads(golden.read_text())["steps"][0]["message"] == "first"


def test_two_tests_sharing_a_golden_are_refused(pytester: pytest.Pytester) -> None:
    # Both ids are safe, so both keep readable names: test_a_b_c.json.
    pytester.makepyfile(
        test_clash="""
import pytest

def traj(message):
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": message}]}

@pytest.mark.parametrize("value", ["c"])
def test_a_b(golden_trajectory, value):
    golden_trajectory(traj("from test_a_b"))

@pytest.mark.parametrize("value", ["b_c"])
def test_a(golden_trajectory, value):
    golden_trajectory(traj("from test_a"))
"""
    )
    for args in (["--golden-update"], []):
        result = pytester.runpytest(*args)
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines(
            [
                "golden_trajectory: *golden/test_clash/test_a_b_c.json is already the golden of "
                "test_clash.py::test_a_b[[]c]; test_clash.py::test_a[[]b_c] maps to the same file",
                "*hint: give one of them a distinct name= (or parametrize id)",
            ]
        )
        assert "\nupdated:" not in result.stdout.str()


MERGE_CONFLICT = """<<<<<<< HEAD
{"steps": []}
=======
{"steps": [{"source": "agent"}]}
>>>>>>> feature
"""


def test_update_replaces_a_golden_with_merge_conflict_markers(
    agent_test: pytest.Pytester,
) -> None:
    _golden(agent_test).parent.mkdir(parents=True)
    _golden(agent_test).write_text(MERGE_CONFLICT)
    result = agent_test.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "golden_trajectory: *test_agent.json:1: golden file is not valid JSON: *",
            "*hint: resolve the merge conflict or re-record it with --golden-update",
            "Re-record it with:",
            "    pytest test_agent.py::test_agent --golden-update",
        ]
    )
    result = agent_test.runpytest("--golden-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "updated: golden/test_agent/test_agent.json",
            "    replaced, it was unreadable: golden file is not valid JSON: *",
            "0 created, 1 updated: *",
        ]
    )
    assert len(json.loads(_golden(agent_test).read_text())["steps"]) == 3
    agent_test.runpytest().assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"steps": 5}', "$.steps: golden file does not hold a trajectory: steps must be a list"),
        (b'{"steps": [5]}', "$.steps: golden file does not hold a trajectory"),
        (b'{"steps": [{"tool_calls": 5}]}', "golden file does not hold a valid trajectory"),
        (b"\xff\xfe{}", "golden file is not UTF-8 text"),
    ],
    ids=["steps-not-a-list", "step-not-an-object", "tool-calls-not-a-list", "not-utf8"],
)
def test_golden_that_is_not_a_trajectory_fails_with_the_file(
    agent_test: pytest.Pytester, content: bytes, message: str
) -> None:
    _golden(agent_test).parent.mkdir(parents=True)
    _golden(agent_test).write_bytes(content)
    result = agent_test.runpytest()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"golden_trajectory: {_golden(agent_test)}: {message}" in out
    assert "hint: re-record it with --golden-update" in out
    assert "Traceback" not in out
    assert "normalize.py" not in out
    result = agent_test.runpytest("--golden-update")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["    replaced, it was unreadable: *"])
    agent_test.runpytest().assert_outcomes(passed=1)


def test_invalid_trajectory_fails_the_test_with_the_path(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_bad="""
def test_bad(golden_trajectory):
    golden_trajectory({"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
                       "steps": [{"step_id": 1, "source": "robot", "message": ""}]})
"""
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "golden_trajectory: $.steps[0].source: not valid ATIF: Input should be" in out
    assert "def load_trajectory" not in out
    assert "During handling" not in out


def test_plugin_import_is_light() -> None:
    code = (
        "import sys, trajguard.pytest.plugin; "
        "heavy = [m for m in ('pydantic', 'numpy', 'pandas', 'litellm', 'scipy', 'pyarrow') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"the plugin imported heavy modules at load time: {out}"
