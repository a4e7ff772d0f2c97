"""Everything the plugin's hooks share in one session, as syrupy's ``SnapshotSession`` does.

Ownership: a golden file or a cassette belongs to one test of the session; a second test that
maps to it fails, naming both. Under pytest-xdist each worker has its own session; the workers
send what they used, owned and passed to the controller (``workeroutput``), which merges them,
fails the run when two tests on different workers shared a file, and reports unused files for
the whole run.

Unused files: in the golden and cassette folders of every collected test module, a file is
unused when the test it belongs to (by file name) passed this session without using it, or
when no test of its module has that name any more (only when the module was collected whole,
not narrowed to single tests on the command line).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from trajguard.pytest._options import Settings

__all__ = ["TrajguardSession", "Written"]

_WORKER_KEY = "trajguard"


@dataclass(frozen=True, kw_only=True)
class Written:
    """A file the session wrote: a golden or a cassette, created or updated, with details."""

    kind: str
    status: str
    path: Path
    details: tuple[str, ...] = ()


def _key(path: Path) -> str:
    return os.path.normcase(str(path))


@dataclass
class TrajguardSession:
    """The plugin's state for one pytest session (or one xdist worker)."""

    settings: Settings
    owners: dict[str, str] = field(default_factory=dict)
    """File (normalised path) → the node id of the test that uses it."""
    conflicts: list[str] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)
    collected: dict[str, set[str]] = field(default_factory=dict)
    """Test module path → the names of its collected tests."""
    partial: set[str] = field(default_factory=set)
    """Test modules the command line narrowed to single tests."""
    passed: set[tuple[str, str]] = field(default_factory=set)
    """(module path, test name) of every test that passed."""

    def claim(self, path: Path, nodeid: str) -> str | None:
        """Register ``path`` as the file of test ``nodeid``; the node id of the test that
        already uses it, if another one does."""
        owner = self.owners.setdefault(_key(path), nodeid)
        return None if owner == nodeid else owner

    def record_collection(self, items: Iterable[pytest.Item], args: Iterable[str]) -> None:
        """Remember the collected tests per module, and which modules were narrowed."""
        for item in items:
            self.collected.setdefault(str(item.path), set()).add(item.name)
        for arg in args:
            if "::" in arg:
                self.partial.add(str(Path(arg.split("::", 1)[0]).resolve()))

    def record_pass(self, item: pytest.Item) -> None:
        """A test passed (its files, if it used fewer than exist, are unused)."""
        self.passed.add((str(item.path), item.name))

    # -- pytest-xdist -------------------------------------------------------------------

    def to_worker_output(self) -> dict[str, Any]:
        """What a worker sends to the controller."""
        return {
            "owners": self.owners,
            "conflicts": self.conflicts,
            "written": [[w.kind, w.status, str(w.path), list(w.details)] for w in self.written],
            "collected": {module: sorted(names) for module, names in self.collected.items()},
            "partial": sorted(self.partial),
            "passed": sorted(self.passed),
        }

    def merge_worker_output(self, output: Mapping[str, Any]) -> None:
        """Merge a worker's output into the controller's session."""
        self.conflicts += list(output.get("conflicts", ()))
        for key, nodeid in dict(output.get("owners", {})).items():
            owner = self.owners.setdefault(key, nodeid)
            if owner != nodeid:
                self.conflicts.append(
                    f"{key} is used by {owner} and by {nodeid} (on different xdist workers)"
                )
        for kind, status, path, details in output.get("written", ()):
            self.written.append(
                Written(kind=kind, status=status, path=Path(path), details=tuple(details))
            )
        for module, names in dict(output.get("collected", {})).items():
            self.collected.setdefault(module, set()).update(names)
        self.partial.update(output.get("partial", ()))
        self.passed.update((module, name) for module, name in output.get("passed", ()))

    # -- unused files -------------------------------------------------------------------

    def unused(self) -> list[Path]:
        """Goldens and cassettes of collected modules that no test used (see module doc)."""
        from trajguard._files import test_artifact_path  # imported late: plugin load stays light

        found: list[Path] = []
        for module, names in sorted(self.collected.items()):
            module_path = Path(module)
            stems = {
                test_artifact_path(module_path, name, name=None, folder="x").stem: name
                for name in names
            }
            for folder in (self.settings.golden_dir, self.settings.cassette_dir):
                directory = module_path.parent / folder / module_path.stem
                if not directory.is_dir():
                    continue
                for file in sorted(directory.glob("*.json")):
                    if _key(file) in self.owners:
                        continue
                    test = _owner_test(file.stem, stems)
                    if (test is None and module not in self.partial) or (
                        test is not None and (module, test) in self.passed
                    ):
                        found.append(file)
        return found


def _owner_test(stem: str, stems: Mapping[str, str]) -> str | None:
    """The test a file belongs to by name: ``<test stem>.json`` or ``<test stem>.<name>.json``
    (the longest matching stem wins)."""
    matches = [s for s in stems if stem == s or stem.startswith(s + ".")]
    return stems[max(matches, key=len)] if matches else None
