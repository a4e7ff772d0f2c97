"""The package's face: every public name of capture is reached as ``trajguard.capture.<name>``,
loaded on first use (importing the package loads none of its modules, nor litellm)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import trajguard.capture as capture

INIT = Path(capture.__file__)


def test_every_public_name_is_exported_once_and_resolves() -> None:
    exports = capture._EXPORTS
    assert sorted(exports) == sorted(capture.__all__) == sorted(set(capture.__all__))
    for name in capture.__all__:
        value = getattr(capture, name)
        module = sys.modules[exports[name]]
        assert getattr(module, name) is value
        assert name in module.__all__, f"{name} is not public in {exports[name]}"


def test_the_names_type_checkers_see_are_the_names_loaded() -> None:
    """The ``if TYPE_CHECKING:`` imports (what mypy reads) name the modules ``_EXPORTS`` loads."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If))
    seen = {
        alias.name: node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert seen == capture._EXPORTS


def test_importing_the_package_loads_none_of_its_modules() -> None:
    code = (
        "import sys, trajguard.capture; "
        "print(sorted(m for m in sys.modules "
        "if m.startswith('trajguard.capture.') or m == 'litellm'))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"
