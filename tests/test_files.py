"""trajguard._files: the file mode of atomic writes and the names of golden and cassette files."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from trajguard import _files
from trajguard._files import default_mode


@pytest.fixture
def umask_027() -> Iterator[None]:
    """Run with umask 027 and a fresh umask cache; restore both afterwards."""
    previous = os.umask(0o027)
    _files._umask.cache_clear()
    try:
        yield
    finally:
        os.umask(previous)
        _files._umask.cache_clear()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
@pytest.mark.usefixtures("umask_027")
def test_default_mode_reads_the_umask_without_changing_it(monkeypatch) -> None:
    def no_umask(mask: int) -> int:
        raise AssertionError("os.umask changes the umask of every thread of the process")

    monkeypatch.setattr(_files.os, "umask", no_umask)
    assert default_mode() == 0o640
    assert default_mode(directory=True) == 0o750


@pytest.mark.usefixtures("umask_027")
def test_default_mode_falls_back_to_os_umask_once(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(_files, "_PROC_STATUS", tmp_path / "no-proc-here")
    calls: list[int] = []
    real_umask = os.umask

    def counting_umask(mask: int) -> int:
        calls.append(mask)
        return real_umask(mask)

    monkeypatch.setattr(_files.os, "umask", counting_umask)
    assert default_mode() == 0o640
    assert default_mode(directory=True) == 0o750
    assert calls == [0, 0o027], "the umask is read once (set to 0, restored), then cached"
    assert real_umask(0o027) == 0o027, "the umask is restored"


def _name(test_name: str, name: str | None = None) -> str:
    return _files.test_artifact_path(
        Path("/r/tests/test_m.py"), test_name, name=name, folder="g"
    ).name


def test_artifact_names_are_distinct_for_distinct_test_ids() -> None:
    # Safe names keep the readable layout: committed goldens and cassettes stay where they are.
    assert _name("test_a") == "test_a.json"
    assert _name("test_x[a-1]") == "test_x_a-1.json"
    assert _name("test_reference_agent[calculator]") == "test_reference_agent_calculator.json"
    assert _name("test_p[a_b]") == "test_p_a_b.json"
    assert _name("test_a", name="live run") == "test_a.live_run.json"
    assert _name("test_a", name="2") == "test_a.2.json"
    # Ids that cleaning would merge get a short hash of the test name.
    ids = ["a b", "a/b", "a_b", "a  b", "a:b", "a b ", "_a_b", "a]b", "a[b", "", "é"]
    names = [_name(f"test_p[{i}]") for i in ids]
    assert len(set(names)) == len(ids), names
    assert _name("test_p[a b]") == _name("test_p[a b]"), "the name is stable"
    assert all(n.startswith("test_p") and n.endswith(".json") for n in names)
    assert all("/" not in n and " " not in n for n in names)
