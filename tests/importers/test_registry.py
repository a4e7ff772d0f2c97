"""The importer kinds have one owner, :data:`trajguard._catalog.IMPORT_SOURCES`: the command
line's choices and the registry both read it, every kind has its reader module, and no reader
module exists outside it."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import trajguard.importers
from trajguard._catalog import IMPORT_SOURCES
from trajguard.cli import build_parser
from trajguard.errors import UsageError
from trajguard.importers import SOURCES
from trajguard.importers._registry import reader


@pytest.mark.parametrize("kind", sorted(IMPORT_SOURCES))
def test_every_kind_has_a_reader(kind: str) -> None:
    module = reader(kind)
    assert callable(module.detect) and callable(module.read)
    assert module.__name__ == f"trajguard.importers._{kind}"


def test_no_reader_outside_the_table() -> None:
    readers = set()
    for info in pkgutil.iter_modules(trajguard.importers.__path__):
        module = importlib.import_module(f"trajguard.importers.{info.name}")
        if callable(getattr(module, "detect", None)) and callable(getattr(module, "read", None)):
            readers.add(info.name.removeprefix("_"))
    assert readers == set(IMPORT_SOURCES)


def test_the_command_line_and_the_registry_read_the_one_table() -> None:
    assert SOURCES is IMPORT_SOURCES
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    source = next(a for a in commands["import"]._actions if a.dest == "source")
    assert list(source.choices) == sorted(IMPORT_SOURCES)


def test_an_unknown_kind_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no importer for 'langfuse'"):
        reader("langfuse")
