"""The lazy package faces (trajguard._lazy, issue 40): ``__all__`` is what type checkers see under
``if TYPE_CHECKING:`` (and the few names imported eagerly), and each of those names resolves at
run time to the object the module named in its import holds."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import trajguard

LAZY = (
    "trajguard.comparison",
    "trajguard.pipeline",
    "trajguard.report",
    "trajguard.report.builders",
    "trajguard.stats",
)
SRC = Path(trajguard.__file__).resolve().parent


def _typed_imports(package: str) -> dict[str, str]:
    """name -> module of the ``from PACKAGE._x import name`` lines under ``if TYPE_CHECKING:``."""
    path = SRC.joinpath(*package.split(".")[1:], "__init__.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for line in node.body:
                assert isinstance(line, ast.ImportFrom) and line.module, ast.unparse(line)
                found.update({alias.name: line.module for alias in line.names})
    return found


@pytest.mark.parametrize("package", LAZY)
def test_every_name_resolves_to_its_modules_object(package: str) -> None:
    module = importlib.import_module(package)
    typed = _typed_imports(package)
    eager = {name for name in module.__all__ if name in vars(module)} - set(typed)
    assert set(module.__all__) == set(typed) | eager  # the face offers what type checkers see
    for name, source in typed.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name), name
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        module.nothing_here  # noqa: B018
