"""What of a suite that failed validation can still be checked, so that one ``validate`` names
every independent mistake: a misspelt criterion does not hide the scenario's misspelt function.

:func:`checkable_part` repairs the suite's data where a problem was reported already: an
unknown key is dropped, a criterion that does not validate is replaced by one that no later
check looks at (so the others keep their positions, and their lines), an optional setting that
is out of range falls back to its default, and a scenario with any other problem is left out.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from trajguard.suite._error_messages import data_loc
from trajguard.suite._yaml_lines import Key

__all__ = ["checkable_part"]

# max_steps is judged only on a run: no check before a run looks at it
_INERT_CRITERION = {"max_steps": 1}


def checkable_part(
    data: Mapping[str, Any], error: ValidationError, criteria: Iterable[Key]
) -> tuple[dict[str, Any], list[int]] | None:
    """The suite's data with the reported problems taken out, and the file position of each
    scenario it keeps; ``None`` when what failed cannot be taken out (a required field of the
    suite, a scenario list that is not a list).

    Args:
        data: the suite's YAML data (``scenarios_from`` expanded).
        error: pydantic's validation error of ``data``.
        criteria: where the criteria are that did not parse (``("scenarios", 2, "pass", 0)``).
    """
    part: Any = copy.deepcopy(dict(data))
    scenarios = part.get("scenarios")
    if not isinstance(scenarios, list):
        return None
    dropped: set[int] = set()
    replaced: set[Key] = set()
    for where in criteria:
        _replace_criterion(scenarios, where)
        replaced.add(where[:3])
    for err in error.errors(include_url=False):
        where = data_loc(err)
        if where in replaced:  # the list's error of a criterion that did not parse
            continue
        if _is_criterion(where):
            _replace_criterion(scenarios, where)
        elif err["type"] == "extra_forbidden":
            _remove(part, where)
        elif where[:1] == ("scenarios",) and len(where) > 1 and isinstance(where[1], int):
            dropped.add(where[1])
        elif err["type"] == "missing" or not where or not _remove(part, where):
            return None  # a required setting of the suite: nothing to fall back on
    kept = [i for i in range(len(scenarios)) if i not in dropped]
    if not kept:
        return None
    part["scenarios"] = [scenarios[i] for i in kept]
    return part, kept


def _is_criterion(where: Key) -> bool:
    return len(where) >= 4 and where[0] == "scenarios" and where[2] == "pass"


def _replace_criterion(scenarios: list[Any], where: Key) -> None:
    scenario = scenarios[where[1]] if isinstance(where[1], int) else None
    criteria = scenario.get("pass") if isinstance(scenario, dict) else None
    if isinstance(criteria, list) and isinstance(where[3], int) and where[3] < len(criteria):
        criteria[where[3]] = dict(_INERT_CRITERION)


def _remove(data: Any, where: Key) -> bool:
    """Remove the value at ``where`` (its setting's default then applies); whether it was
    there to remove."""
    parent = data
    for key in where[:-1]:
        try:
            parent = parent[key]
        except (KeyError, IndexError, TypeError):
            return False
    if isinstance(parent, dict) and where[-1] in parent:
        del parent[where[-1]]
        return True
    return False
