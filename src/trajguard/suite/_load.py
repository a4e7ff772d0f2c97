"""Read a suite file: YAML with line numbers → validated models → the checks of :mod:`._checks`.

Every problem is collected, not only the first: the criteria that do not parse, every error
pydantic finds, and — on the scenarios that did validate — every check after validation. One
problem is raised as itself; several as :class:`~trajguard.errors.SuiteErrors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from trajguard.errors import SuiteError, suite_problems
from trajguard.suite._checks import check_loaded_suite, check_raw_criteria
from trajguard.suite._explain import explain_validation_error
from trajguard.suite._from_data import DataRow
from trajguard.suite._models import Suite
from trajguard.suite._sources import expand_sources, relocate
from trajguard.suite._yaml_lines import LineMap, load_yaml_with_lines

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
    if problems:  # a data file that does not read, or rows that do not fill their templates
        raise _sorted(problems, origins)
    problems = check_raw_criteria(data, path, lines)
    bad = {_scenario_index(p.path) for p in problems}
    try:
        suite = Suite.model_validate({**data, "path": path.resolve()})
    except ValidationError as exc:
        found = explain_validation_error(exc, path, lines, data)
        problems += [p for p in found if not _reported(p, bad)]
        bad |= {_scenario_index(p.path) for p in found}
        problems += _check_the_valid_scenarios(data, path, lines, bad, check_imports)
        raise _sorted(problems, origins) from None
    problems += check_loaded_suite(suite, path, lines, check_imports=check_imports)
    if problems:
        raise _sorted(problems, origins)
    return suite


def _check_the_valid_scenarios(
    data: Mapping[str, Any], path: Path, lines: LineMap, bad: set[int | None], check_imports: bool
) -> list[SuiteError]:
    """The later checks on the scenarios that validated, when only scenarios failed."""
    scenarios = data.get("scenarios")
    if None in bad or not isinstance(scenarios, list):
        return []  # something outside the scenarios failed: the suite cannot be built
    kept = [i for i in range(len(scenarios)) if i not in bad]
    if not kept:
        return []
    partial = {**data, "scenarios": [scenarios[i] for i in kept], "path": path.resolve()}
    try:
        suite = Suite.model_validate(partial)
    except ValidationError:
        return []
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


def _sorted(problems: list[SuiteError], origins: Mapping[int, DataRow]) -> SuiteError:
    """The problems in file order (those without a line last), as one error; a problem of a
    scenario made from a data row names that row."""
    if origins:
        problems = [relocate(p, origins, _scenario_index(p.path)) for p in problems]
        problems = list({(p.file, p.line, p.path, p.message): p for p in problems}.values())
    ordered = sorted(problems, key=lambda p: (p.file or "", p.line is None, p.line or 0))
    return suite_problems(ordered)
