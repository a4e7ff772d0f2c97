"""Package faces that import a name's private module when the name is first used.

A package whose ``__init__`` imported every private module made each reader pay for all of
them: ``trajguard show`` loaded the comparison, scipy and statsmodels to print a table (issue
40). A lazy package keeps the same ``__all__`` and, for type checkers, the same imports under
``if TYPE_CHECKING:``; at run time its ``__getattr__`` (:pep:`562`) imports the one private
module that holds the name asked for. ``tests/test_lazy_faces.py`` checks that every name
of ``__all__`` resolves to the object of the import its type checkers see.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_face"]


def lazy_face(package: str, modules: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``, given its private modules and the names each one
    gives the face (``{"_rates": ("boschloo_pvalue", ...)}``). A name is imported from its
    module on first use and then kept in the package's namespace."""
    owner = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = owner.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
