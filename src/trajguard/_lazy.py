"""Package faces that import a name's private module when the name is first used.

A package whose ``__init__`` imported every private module made each reader pay for all of
them: ``trajguard show`` loaded the comparison, scipy and statsmodels to print a table (issue
40). A lazy package keeps its ``__all__`` and writes its imports under ``if TYPE_CHECKING:``,
where type checkers and readers see them; those lines are also the one table of which module
holds which name: at run time the package's ``__getattr__`` (:pep:`562`) reads them from the
package's source on first use and imports the one private module that holds the name asked
for. ``tests/test_lazy_faces.py`` checks that every name of ``__all__`` resolves.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["lazy_face"]


@cache
def typed_imports(package: str) -> dict[str, str]:
    """name -> module of the ``from MODULE import name`` lines under the package's
    ``if TYPE_CHECKING:``."""
    source = Path(str(sys.modules[package].__file__)).read_text(encoding="utf-8")
    owners: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for line in node.body:
                if isinstance(line, ast.ImportFrom) and line.module:
                    owners.update({alias.asname or alias.name: line.module for alias in line.names})
    return owners


def lazy_face(package: str) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: a name of its ``if TYPE_CHECKING:`` imports is
    imported from its module on first use and then kept in the package's namespace."""

    def __getattr__(name: str) -> Any:
        module = typed_imports(package).get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
