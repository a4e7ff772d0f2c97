"""Inspect AI logs read by Inspect's own reader (``inspect_ai.log``), when it is installed.

Inspect's reader migrates older log versions and checks every field against its models, but
bounds nothing: every log is first read through the built-in reader's limits
(:func:`~trajguard.importers._inspect_files.preflight`). Each sample is then dumped to the
same plain JSON the built-in reader (:mod:`._inspect_files`) yields, so the mapping cannot tell
the two apart.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from trajguard.errors import SourceLogError
from trajguard.importers._inspect_files import preflight
from trajguard.importers._inspect_log import (
    EVENT_FIELDS,
    SAMPLE_SKIP,
    TOOL_EVENTS,
    InspectLog,
    check_header,
    plain,
    tool_events,
)

__all__ = ["available", "open_log"]

_NOT_READ = set(SAMPLE_SKIP) - {"events"}  # the tool events are read (react()'s submit())


def available() -> bool:
    """Whether Inspect is installed (checked without importing it)."""
    return importlib.util.find_spec("inspect_ai") is not None


def open_log(path: Path) -> InspectLog:
    """The header of the log at ``path`` and a reader of its samples, through Inspect.

    Raises:
        SourceLogError: Inspect cannot read it.
    """
    from inspect_ai.log import read_eval_log

    preflight(path)  # Inspect's reader has no limits: it must not see what would pass ours
    try:
        header_log = read_eval_log(str(path), header_only=True)
    except Exception as exc:  # Inspect's reader raises many kinds; all mean the file is bad
        raise _unreadable(path, exc) from None
    header = plain(header_log.model_dump(mode="json", exclude={"samples", "reductions"}))
    return InspectLog(file=path, header=check_header(header, path), samples=lambda: _samples(path))


def _samples(path: Path) -> Iterator[tuple[str, Mapping[str, Any]]]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path), resolve_attachments=True, exclude_fields=_NOT_READ)
    except Exception as exc:  # as above
        raise _unreadable(path, exc) from None
    samples = log.samples or []
    log.samples = None
    for index, sample in enumerate(samples):
        where = f"samples/{sample.id}_epoch_{sample.epoch}.json"
        dumped = sample.model_dump(mode="json", exclude_none=True, exclude=set(SAMPLE_SKIP))
        dumped[TOOL_EVENTS] = tool_events(
            [
                event.model_dump(mode="json", exclude_none=True, include=set(EVENT_FIELDS))
                for event in sample.events
                if event.event in ("model", "tool")
            ]
        )
        yield (where if path.suffix == ".eval" else f"$.samples[{index}]"), dumped
        samples[index] = None  # type: ignore[call-overload]


def _unreadable(path: Path, exc: Exception) -> SourceLogError:
    text = str(exc).strip().splitlines()
    detail = f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__
    return SourceLogError(
        f"Inspect cannot read the log ({detail})",
        file=path,
        hint="the file may be truncated or not an Inspect log; set TRAJGUARD_INSPECT_READER="
        "builtin to read it without Inspect, which names the damaged part",
    )
