"""Paths the prose names exist: a page moved or a module renamed cannot leave a dangling name.

Every ``docs/….md`` named in src, the README, the docs and benchmarks/RESULTS.md is a file; every
``package/_module.py`` named in architecture.md is a file (of src/trajguard, or of the
repository for ``tests/…`` and ``docs/…``); the "Inside comparison"
table names every module of comparison (a private subpackage counts as one), and nothing else.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "trajguard"
ARCHITECTURE = ROOT / "docs" / "explanation" / "architecture.md"
DOC_PATH = re.compile(r"\bdocs/[\w./-]+\.md\b")
MODULE_PATH = re.compile(r"`([a-z_]+(?:/[a-z_]+)*\.py)`")


def _texts() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "benchmarks" / "RESULTS.md"]
    files += sorted(SRC.rglob("*.py"))
    files += sorted(p for p in (ROOT / "docs").rglob("*.md"))
    return files


def test_every_docs_page_named_exists() -> None:
    dangling = []
    for path in _texts():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in DOC_PATH.findall(line):
                if not (ROOT / name).is_file():
                    dangling.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert dangling == []


def _exists(name: str) -> bool:
    if "/" not in name:  # a module named bare, in a sentence about its package
        return any(SRC.rglob(name))
    return (SRC / name.removeprefix("trajguard/")).is_file() or (ROOT / name).is_file()


def test_every_module_architecture_names_exists() -> None:
    names = set(MODULE_PATH.findall(ARCHITECTURE.read_text(encoding="utf-8")))
    assert len(names) > 10, "the pattern found almost no module in architecture.md"
    assert sorted(n for n in names if not _exists(n)) == []


def test_inside_comparison_table_names_each_module_once() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text[text.index("| designs |") :].split("\n\n", 1)[0]
    named = [
        m for row in table.splitlines() for m in re.findall(r"`(_[a-z_]+)`", row.split("|")[2])
    ]
    modules = sorted(
        p.stem
        for p in (SRC / "comparison").glob("_*")
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    )
    assert sorted(named) == modules
