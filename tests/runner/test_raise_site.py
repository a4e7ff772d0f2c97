"""Where a callable agent raised: the agent's own frame, its path never absolute."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from trajguard.runner._raise_site import raise_site

AGENT = "import helper_lib\n\ndef agent(ctx):\n    x = 1\n    return helper_lib.explode(x)\n"
LIBRARY = "def explode(x):\n    raise ValueError(f'bad {x}')\n"


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    installed = tmp_path / "suite" / ".venv" / "lib" / "site-packages"
    installed.mkdir(parents=True)
    (installed / "helper_lib.py").write_text(LIBRARY)
    (tmp_path / "suite" / "agents").mkdir()
    (tmp_path / "suite" / "agents" / "mine.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(installed))
    monkeypatch.delitem(sys.modules, "helper_lib", raising=False)
    return _load(tmp_path / "suite" / "agents" / "mine.py", "mine_agent_for_site")


def test_the_agents_own_line_not_the_library_it_called(agent: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        agent.agent(None)
    site = raise_site(caught.value, function=agent.agent, base_dir=tmp_path / "suite")
    assert site == "agents/mine.py:5", "the line of the agent that called the library"


def test_a_file_outside_the_suite_is_named_as_imported(
    agent: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path / "suite"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(ValueError) as caught:
        agent.agent(None)
    site = raise_site(caught.value, function=agent.agent, base_dir=elsewhere)
    assert site == "agents/mine.py:5"
    assert str(tmp_path) not in (site or "")


def test_no_frame_of_the_agent_gives_no_site(agent: ModuleType, tmp_path: Path) -> None:
    error = ValueError("made, never raised")
    assert raise_site(error, function=agent.agent, base_dir=tmp_path / "suite") is None
