"""Which files are an agent's own code (``--resume`` hashes them)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pandas
import pytest

from trajguard.runner._agent_code import _module_files


def test_a_function_of_an_installed_package_hashes_its_module_not_the_package() -> None:
    files = _module_files("pandas.core.frame:DataFrame")
    assert files == [Path(pandas.core.frame.__file__).resolve()]


def test_a_function_of_the_users_package_hashes_the_whole_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"agentpkg_{uuid.uuid4().hex[:8]}"
    package = tmp_path / name
    package.mkdir()
    for module in ("__init__", "agent", "helper"):
        (package / f"{module}.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    files = _module_files(f"{name}.agent:run")
    assert [f.name for f in files] == ["__init__.py", "agent.py", "helper.py"]
