"""Read a suite file: YAML with line numbers → validated models → the checks of :mod:`._checks`.

Every problem is collected, not only the first: the mistakes of ``scenarios_from`` entries,
the criteria that do not parse, every error pydantic finds, and — on what validates once those
are taken out (:mod:`._partial`) — every check after validation. One
problem is raised as itself; several as :class:`~trajguard.errors.SuiteErrors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trajguard.errors import SuiteError, suite_problems
from trajguard.suite._checks import check_loaded_suite, check_raw_criteria
from trajguard.suite._error_messages import explain_validation_error
from trajguard.suite._models import Suite
from trajguard.suite._partial import checkable_part
from trajguard.suite._row_problems import place_row_problems
from trajguard.suite._sources import Origin, expand_sources
from trajguard.suite._yaml_lines import Key, LineMap, load_yaml_with_lines, undotted

__all__ = ["load_suite"]


def load_suite(path: str | Path, *, check_imports: bool = True) -> Suite:
    """Read and validate a suite file.

    Raises:
        SuiteError: naming the file, line and field of a problem, what was expected, and a
            likely fix; :class:`~trajguard.errors.SuiteErrors` (a ``SuiteError``) when there
            are several, each with its own file, line, field and hint.
    """
    path = Path(path)
    data, lines = load_yaml_with_lines(path)
    if not isinstance(data, Mapping):
        raise SuiteError(
            "a suite file is a YAML mapping with name, defaults and scenarios",
            file=path,
            line=1,
        )
    data, origins, problems = expand_sources(data, path, lines)
    if problems and not data.get("scenarios"):  # no scenario is left to check
        raise _sorted(problems, origins, path, lines)
    criteria = check_raw_criteria(data, path, lines)
    problems += criteria
    try:
        suite = Suite.model_validate({**data, "path": path.resolve()})
    except ValidationError as exc:
        failed = {_scenario_index(p.path) for p in criteria}
        found = explain_validation_error(exc, path, lines, data)
        problems += [p for p in found if not _reported(p, failed)]
        where = [undotted(p.path or "") for p in criteria]
        problems += _check_what_validates(data, exc, where, path, lines, check_imports)
        raise _sorted(problems, origins, path, lines) from None
    problems += check_loaded_suite(suite, path, lines, check_imports=check_imports)
    if problems:
        raise _sorted(problems, origins, path, lines)
    return suite


def _check_what_validates(
    data: Mapping[str, Any],
    error: ValidationError,
    criteria: list[Key],
    path: Path,
    lines: LineMap,
    check_imports: bool,
) -> list[SuiteError]:
    """The later checks on what of the suite validates once the problems reported are taken
    out (:func:`~._partial.checkable_part`)."""
    part = checkable_part(data, error, criteria)
    if part is None:
        return []
    repaired, kept = part
    try:
        suite = Suite.model_validate({**repaired, "path": path.resolve()})
    except ValidationError:
        return []  # a problem that taking out did not cure: reported already
    return check_loaded_suite(suite, path, lines, check_imports=check_imports, indices=kept)


def _scenario_index(field: str | None) -> int | None:
    """``scenarios[3].pass[0]`` → 3; ``None`` for a problem outside the scenarios."""
    if field is None or not field.startswith("scenarios["):
        return None
    number = field[len("scenarios[") :].partition("]")[0]
    return int(number) if number.isdecimal() else None


def _reported(problem: SuiteError, criteria_failed: set[int | None]) -> bool:
    """A pydantic error about a scenario's criteria whose parse problem is reported already."""
    index = _scenario_index(problem.path)
    return (
        index is not None
        and index in criteria_failed
        and (problem.path or "").startswith(f"scenarios[{index}].pass")
    )


def _sorted(
    problems: list[SuiteError], origins: Mapping[int, Origin], path: Path, lines: LineMap
) -> SuiteError:
    """The problems in file order (those without a line last), as one error; a problem of
    scenarios made from data rows is the entry's (once) or its rows' (:mod:`._row_problems`)."""
    problems = place_row_problems(problems, origins, path, lines)
    problems = list({(p.file, p.line, p.path, p.message): p for p in problems}.values())
    ordered = sorted(problems, key=lambda p: (p.file or "", p.line is None, p.line or 0))
    return suite_problems(ordered)
