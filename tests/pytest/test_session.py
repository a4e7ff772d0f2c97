"""The plugin's session: goldens and cassettes no test uses, and runs under pytest-xdist."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

TRAJECTORY = {
    "schema_version": "ATIF-v1.7",
    "agent": {"name": "demo", "version": "1"},
    "steps": [
        {"step_id": 1, "source": "user", "message": "What is 17 * 23?"},
        {"step_id": 2, "source": "agent", "message": "391"},
    ],
}

HEADER = f"import json\n\nTRAJECTORY = json.loads({json.dumps(json.dumps(TRAJECTORY))})\n\n\n"


def golden_test(name: str, golden_name: str | None = None) -> str:
    named = f", name={golden_name!r}" if golden_name else ""
    return f"def {name}(golden_trajectory):\n    golden_trajectory(TRAJECTORY{named})\n"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:asyncio -p no:cacheprovider -p no:hypothesispytest")
    return pytester


def write(project: pytest.Pytester, *tests: str) -> None:
    project.makepyfile(test_agent=HEADER + "\n\n".join(tests))


def goldens(project: pytest.Pytester) -> list[str]:
    folder = project.path / "golden" / "test_agent"
    return sorted(p.name for p in folder.glob("*.json")) if folder.exists() else []


def test_a_removed_test_leaves_an_unused_golden_that_can_be_listed_and_deleted(project):
    write(project, golden_test("test_one"), golden_test("test_two"))
    project.runpytest("--golden-update").assert_outcomes(passed=2)
    assert goldens(project) == ["test_one.json", "test_two.json"]

    write(project, golden_test("test_one"))
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*trajguard: 1 golden or cassette file(s) no test used*"])

    listed = project.runpytest("--golden-unused")
    listed.stdout.fnmatch_lines(
        ["*trajguard unused files*", "unused: golden/test_agent/test_two.json"]
    )
    assert goldens(project) == ["test_one.json", "test_two.json"], "listing deletes nothing"

    deleted = project.runpytest("--golden-unused", "--golden-update")
    deleted.stdout.fnmatch_lines(["deleted: golden/test_agent/test_two.json"])
    assert goldens(project) == ["test_one.json"]
    assert "no test used" not in project.runpytest().stdout.str()


def test_a_golden_its_passing_test_no_longer_writes_is_unused(project):
    write(project, golden_test("test_one", "before"))
    project.runpytest("--golden-update").assert_outcomes(passed=1)
    write(project, golden_test("test_one", "after"))
    project.runpytest("--golden-update").assert_outcomes(passed=1)
    assert goldens(project) == ["test_one.after.json", "test_one.before.json"]
    result = project.runpytest("--golden-unused")
    result.stdout.fnmatch_lines(["unused: golden/test_agent/test_one.before.json"])
    assert "test_one.after.json" not in result.stdout.str()


def test_tests_that_did_not_run_or_fail_are_not_judged(project):
    write(project, golden_test("test_one"), golden_test("test_two"))
    project.runpytest("--golden-update").assert_outcomes(passed=2)
    # Narrowed to one test by node id, or by -k: the other test's golden is not unused.
    for args in (["test_agent.py::test_one"], ["-k", "one"]):
        result = project.runpytest("--golden-unused", *args)
        result.assert_outcomes(passed=1)
        assert "unused" not in result.stdout.str(), args
    # A failing test that never reached its golden call: its golden is not judged either.
    write(project, "def test_one():\n    assert False\n", golden_test("test_two"))
    result = project.runpytest("--golden-unused")
    result.assert_outcomes(passed=1, failed=1)
    assert "unused" not in result.stdout.str()


def test_xdist_workers_report_to_one_summary(project):
    tests = [golden_test(f"test_{i}") for i in range(4)]
    write(project, *tests)
    result = project.runpytest_subprocess("-n", "2", "--golden-update")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*trajguard golden files*", "4 created, 0 updated: *"])
    assert goldens(project) == [f"test_{i}.json" for i in range(4)]

    write(project, *tests[:3])
    result = project.runpytest_subprocess("-n", "2", "--golden-unused")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["unused: golden/test_agent/test_3.json"])
    listed = [line for line in result.stdout.lines if line.startswith("unused: ")]
    assert len(listed) == 1, "the workers' used files are merged"


def test_xdist_two_tests_sharing_a_golden_fail_the_run(project):
    # Golden names leave out the class: both tests map to golden/test_agent/test_x.json.
    method = "    def test_x(self, golden_trajectory):\n        golden_trajectory(TRAJECTORY)\n"
    write(project, f"class TestA:\n{method}", f"class TestB:\n{method}")
    result = project.runpytest_subprocess("-n", "2", "--dist", "loadscope", "--golden-update")
    assert result.ret != 0
    out = result.stdout.str()
    # On one worker the second test fails at once; on two, the controller fails the run.
    assert "golden/test_agent/test_x.json" in out.replace(str(project.path) + "/", "")


def test_goldens_and_cassettes_in_one_directory_are_refused(project):
    write(project, golden_test("test_one"))
    result = project.runpytest("--golden-dir", "cassettes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*goldens and cassettes would share the directory 'cassettes'*"])
