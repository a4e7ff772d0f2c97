"""The plugin's part of pytest's terminal summary: what it wrote, what no test used."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.pytest._session import TrajguardSession, Written

__all__ = ["write_summary"]


def _shown(path: Path, rootdir: Path) -> Path:
    try:
        return path.relative_to(rootdir)
    except ValueError:
        return path


def _written(reporter: pytest.TerminalReporter, written: list[Written], rootdir: Path) -> None:
    goldens = [w for w in written if w.kind == "golden"]
    cassettes = [w for w in written if w.kind == "cassette"]
    if goldens:
        reporter.section("trajguard golden files")
        for item in goldens:
            reporter.write_line(f"{item.status}: {_shown(item.path, rootdir)}")
            for detail in item.details:
                reporter.write_line(f"    {detail}")
        created = sum(w.status == "created" for w in goldens)
        reporter.write_line(
            f"{created} created, {len(goldens) - created} updated: review them in the diff "
            "before committing"
        )
    if cassettes:
        reporter.section("trajguard LLM cassettes")
        for item in cassettes:
            reporter.write_line(f"{item.status}: {_shown(item.path, rootdir)}")
        reporter.write_line(
            f"{len(cassettes)} recorded: review them (and their goldens) in the diff before "
            "committing"
        )


def _unused(reporter: pytest.TerminalReporter, session: TrajguardSession, rootdir: Path) -> None:
    unused = session.unused()
    if not unused:
        return
    settings = session.settings
    if not settings.report_unused:
        reporter.write_line(
            f"trajguard: {len(unused)} golden or cassette file(s) no test used; list them with "
            "--golden-unused (delete them with --golden-unused --golden-update)",
            yellow=True,
        )
        return
    reporter.section("trajguard unused files")
    deleting = settings.golden_update
    for path in unused:
        if deleting:
            path.unlink(missing_ok=True)
        reporter.write_line(f"{'deleted' if deleting else 'unused'}: {_shown(path, rootdir)}")
    if not deleting:
        reporter.write_line(
            f"{len(unused)} unused: delete them with --golden-unused --golden-update"
        )


def write_summary(
    reporter: pytest.TerminalReporter, session: TrajguardSession, rootdir: Path
) -> None:
    """Write the plugin's summary sections (nothing when there is nothing to say)."""
    _written(reporter, session.written, rootdir)
    if session.conflicts:
        reporter.section("trajguard: files shared by tests", red=True)
        for conflict in session.conflicts:
            reporter.write_line(conflict, red=True)
    _unused(reporter, session, rootdir)
