"""Conformance check of one ATIF document: the verdict of ``trajguard validate``.

It agrees with Harbor's ``TrajectoryValidator`` (the reference implementation) on which documents
are valid: a document is refused when it cannot be read, breaks the structure, has a field ATIF
does not define, breaks a rule the spec states with MUST (the errors of
:mod:`trajguard.atif._rules`), or, read from a file, has a content part in its top-level steps
pointing at a local media file that does not exist. Rules the spec states without a MUST are
warnings: reported, not refusing; ``strict`` turns them into errors.

Deliberate differences from Harbor, each because of a sentence of the spec:

* a root object without ``schema_version`` is refused (Harbor fills in its current version):
  the RFC lists ``schema_version`` as Required, and trajguard reads by version;
* a document nested more than :data:`~trajguard.atif.MAX_NESTING` levels deep is refused (a
  limit of trajguard's own, not of the spec: pydantic cannot serialise deeper values).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trajguard.atif._io import read_json, structural_problems, unknown_fields
from trajguard.atif._models import AudioPart, ImagePart, Trajectory
from trajguard.atif._rules import Severity, Violation, check_normative
from trajguard.atif._salvage import salvage
from trajguard.errors import InvalidTrajectory

__all__ = ["ValidationReport", "validate"]


@dataclass(frozen=True, kw_only=True)
class ValidationReport:
    """The verdict on one ATIF document.

    Attributes:
        file: the file read, or ``None`` for a dict or JSON text.
        load_error: why the document could not be read as ATIF at all (not JSON, not an
            object, no or an unsupported version, nested too deep), with its location; then
            nothing else was checked.
        errors: everything that makes the document invalid: first what the schema refuses
            (rule ``structure``, each with its JSON path), then the rules, in document order.
            Parts the schema refuses are set aside and the rest is still checked
            (:mod:`trajguard.atif._salvage`), so one run of ``validate`` lists every problem.
        warnings: rules the spec states without a MUST; empty when ``strict``.
        schema_version: the version the document declares (``None`` when unreadable).
        steps: steps of the root trajectory.
        subagents: embedded subagent trajectories directly under the root.
    """

    file: str | None
    load_error: InvalidTrajectory | None = None
    errors: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()
    schema_version: str | None = None
    steps: int = 0
    subagents: int = 0

    @property
    def valid(self) -> bool:
        """Whether the document is valid ATIF (warnings do not count)."""
        return self.load_error is None and not self.errors


def validate(
    source: str | Path | bytes | Mapping[str, Any],
    *,
    strict: bool = False,
    check_media: bool = True,
) -> ValidationReport:
    """Check one ATIF document the way Harbor's validator does, plus trajguard's rules.

    Args:
        source: a path, JSON text, bytes, or the parsed document.
        strict: report warnings as errors.
        check_media: for a file, check that every local image or audio file a content part
            of its top-level steps points at exists (relative paths from the file's folder;
            URLs are not checked), as Harbor does; in subagents a missing file is a warning.

    Returns:
        The report: ``report.valid`` is the verdict. Bad input is reported, never raised.
    """
    file = None if isinstance(source, Mapping | bytes) else _file_name(source)
    try:
        data, file = read_json(source)
    except InvalidTrajectory as error:
        return ValidationReport(file=error.file or file, load_error=error)
    structure: list[Violation] = []
    aside: list[str] = []
    try:
        trajectory: Trajectory | None = Trajectory.model_validate(data)
    except ValidationError as exc:
        structure = [
            Violation(rule="structure", path=path, message=f"not valid ATIF: {message}")
            for path, message in structural_problems(exc)
        ]
        trajectory, aside = salvage(data, exc)
    found = [] if trajectory is None else _rules(trajectory, file, check_media=check_media)
    found = [v for v in found if not any(_at_or_below(v.path, cut) for cut in aside)]
    if strict:
        found = [replace(v, severity="error") for v in found]
    version = data.get("schema_version")
    return ValidationReport(
        file=file,
        errors=(*structure, *(v for v in found if v.severity == "error")),
        warnings=tuple(v for v in found if v.severity == "warning"),
        schema_version=version if isinstance(version, str) else None,
        steps=len(trajectory.steps) if trajectory is not None else 0,
        subagents=len(trajectory.subagent_trajectories or ()) if trajectory is not None else 0,
    )


def _rules(trajectory: Trajectory, file: str | None, *, check_media: bool) -> list[Violation]:
    found = [
        Violation(
            rule="unknown-field",
            path=path,
            message="field not in ATIF; custom data belongs in an `extra` object",
        )
        for path in unknown_fields(trajectory)
    ]
    found += check_normative(trajectory)
    if check_media and file is not None:
        found += _missing_media(trajectory, Path(file).parent, "$", "error")
    return found


def _at_or_below(path: str, ancestor: str) -> bool:
    return path == ancestor or (
        path.startswith(ancestor) and path[len(ancestor) : len(ancestor) + 1] in (".", "[")
    )


def _file_name(source: str | Path) -> str | None:
    if isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        return None
    return str(source)


def _missing_media(
    traj: Trajectory, folder: Path, path: str, severity: Severity
) -> Iterator[Violation]:
    for index, step in enumerate(traj.steps):
        contents: list[tuple[str, Any]] = [(f"{path}.steps[{index}].message", step.message)]
        for r_index, result in enumerate(step.observation.results if step.observation else ()):
            where = f"{path}.steps[{index}].observation.results[{r_index}].content"
            contents.append((where, result.content))
        for where, content in contents:
            for p_index, part in enumerate(content if isinstance(content, list) else ()):
                if not isinstance(part, ImagePart | AudioPart):
                    continue
                target = part.source.path
                if not target or "://" in target or _exists(folder / target):
                    continue
                yield Violation(
                    rule="media-file",
                    path=f"{where}[{p_index}].source.path",
                    message=f"the {part.type} file {target!r} does not exist (relative paths "
                    "start at the trajectory's folder)",
                    severity=severity,
                )
    for index, child in enumerate(traj.subagent_trajectories or ()):
        # Harbor's validator looks at the top-level steps only; below, report without refusing
        yield from _missing_media(
            child, folder, f"{path}.subagent_trajectories[{index}]", "warning"
        )


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a NUL byte or an over-long name: no such file either
        return False
