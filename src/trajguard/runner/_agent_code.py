"""The hash of an agent's own code, so ``--resume`` refuses an agent that changed mid-batch.

Which files are the agent's code:

* a ``callable`` agent: the module of its function, and when that module belongs to a package,
  every ``.py`` file of its top-level package (a helper beside it changes the agent as much) —
  unless the package is installed (under the interpreter's library or site-packages folders):
  an installed package is a dependency, not the user's agent, so only the module is read;
* a ``builtin`` agent: the modules of its tools, the same way;
* a ``command`` agent: every argv entry that names a regular file under the suite's directory
  (``agent.py`` of ``[python, agent.py, "{output}"]``; the interpreter itself is not the agent).

Modules are found without being imported again (``importlib.util.find_spec``). A module that
cannot be found gives no files: the run itself then says why it cannot import it. At most
:data:`MAX_FILES` files of at most :data:`MAX_FILE_BYTES` each are read per agent.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sysconfig
from collections.abc import Iterable
from pathlib import Path

from trajguard.runner._plan import Plan
from trajguard.runner._raise_site import shown_path
from trajguard.suite import BuiltinAgent, CallableAgent, CommandAgent, ResolvedScenario

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "AgentCode", "agent_code", "agent_codes"]

MAX_FILES = 2000
MAX_FILE_BYTES = 16 * 1024 * 1024


class AgentCode:
    """An agent's code files (shown relative to the suite) and the hash of their contents."""

    def __init__(self, files: list[Path], base_dir: Path) -> None:
        self.files = sorted(set(files))[:MAX_FILES]
        self.shown = [shown_path(path, base_dir) for path in self.files]
        digest = hashlib.sha256()
        for path, shown in zip(self.files, self.shown, strict=True):
            digest.update(shown.encode() + b"\0")
            digest.update(_content(path) + b"\0")
        self.hash = digest.hexdigest()[:16]


def _content(path: Path) -> bytes:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return b"<not read>"
        return path.read_bytes()
    except OSError:
        return b"<unreadable>"


def _module_files(target: str) -> list[Path]:
    """The files of ``module:attr``'s module (its whole top-level package, if it has one)."""
    module = target.partition(":")[0]
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(module)
        package = spec if top == module else importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.origin or not os.path.isfile(spec.origin):
        return []
    locations = list(package.submodule_search_locations or ()) if package is not None else []
    if not locations or _installed(Path(locations[0])):  # a plain module, or a dependency's
        return [Path(spec.origin).resolve()]
    return sorted(Path(locations[0]).resolve().rglob("*.py"))[:MAX_FILES]


def _installed(path: Path) -> bool:
    paths = sysconfig.get_paths()
    roots = {Path(paths[name]).resolve() for name in ("stdlib", "purelib", "platlib")}
    return any(path.resolve().is_relative_to(root) for root in roots)


def _command_files(argv: Iterable[str], base_dir: Path) -> list[Path]:
    root = base_dir.resolve()
    found = []
    for arg in argv:
        if "{" in arg or not arg:
            continue
        path = (base_dir / arg).resolve()
        if path.is_relative_to(root) and path.is_file():
            found.append(path)
    return found


def agent_code(arm: ResolvedScenario) -> AgentCode:
    """The code of the arm's agent."""
    base_dir = Path(arm.base_dir)
    agent = arm.agent
    if isinstance(agent, CallableAgent):
        files = _module_files(agent.function)
    elif isinstance(agent, BuiltinAgent):
        files = [f for tool in agent.tools for f in _module_files(tool)]
    elif isinstance(agent, CommandAgent):
        files = _command_files(agent.argv, base_dir)
    else:  # pragma: no cover - the suite's models allow no other kind
        files = []
    return AgentCode(files, base_dir)


def agent_codes(plan: Plan) -> dict[str, AgentCode]:
    """The agent code of every ``scenario/variant`` of a plan (each agent hashed once)."""
    seen: dict[str, AgentCode] = {}
    codes: dict[str, AgentCode] = {}
    for spec, arm in plan:
        key = f"{spec.scenario}/{spec.variant}"
        if key in codes:
            continue
        identity = f"{arm.base_dir}\0{arm.agent.model_dump_json()}"
        if identity not in seen:
            seen[identity] = agent_code(arm)
        codes[key] = seen[identity]
    return codes
