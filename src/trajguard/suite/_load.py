"""Read a suite file: YAML with line numbers → validated models → the checks of :mod:`._checks`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from trajguard.errors import SuiteError
from trajguard.suite._checks import check_loaded_suite, check_raw_criteria
from trajguard.suite._explain import explain_validation_error
from trajguard.suite._models import Suite
from trajguard.suite._yaml_lines import load_yaml_with_lines

__all__ = ["load_suite"]


def load_suite(path: str | Path, *, check_imports: bool = True) -> Suite:
    """Read and validate a suite file.

    Raises:
        SuiteError: naming the file, line and field of the first problem, what was expected,
            and a likely fix; further problems are listed after it.
    """
    path = Path(path)
    data, lines = load_yaml_with_lines(path)
    if not isinstance(data, Mapping):
        raise SuiteError(
            "a suite file is a YAML mapping with name, defaults and scenarios",
            file=path,
            line=1,
        )
    check_raw_criteria(data, path, lines)
    try:
        suite = Suite.model_validate({**data, "path": path.resolve()})
    except ValidationError as exc:
        raise explain_validation_error(exc, path, lines, data) from None
    check_loaded_suite(suite, path, lines, check_imports=check_imports)
    return suite
