"""How many runs a scenario gets: the one rule every design starts from.

``--runs N`` (a command's option) gives every scenario N; else a scenario's own ``runs:``; else
the suite's ``defaults.runs``. The designs spend these numbers each in its own way
(docs/explanation/statistics.md §4): the fixed design runs them; the sequential design spreads
each scenario's over its looks (its last look reaches them); escalation makes them each
scenario's first look and adds runs up to ``--max-runs``; the budgeted design makes the set
ones (``--runs`` or ``runs:``, not the suite default) each scenario's first look.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trajguard.suite._models import Defaults, Scenario, Suite

__all__ = ["runs_of", "runs_per_scenario", "set_runs"]


def runs_of(scenario: Scenario, defaults: Defaults, *, given: int | None = None) -> int:
    """A scenario's runs: ``given`` (``--runs``), else its own ``runs:``, else the default."""
    return _set(scenario, given) or defaults.runs


def _set(scenario: Scenario, given: int | None) -> int | None:
    return given or scenario.runs


def runs_per_scenario(
    suite: Suite, *, runs: int | None = None, scenarios: Sequence[str] = ()
) -> dict[str, int]:
    """Scenario → its runs (:func:`runs_of`), for ``scenarios`` (default: all, in suite order).

    Raises:
        SuiteError: a scenario the suite does not have.
    """
    chosen = list(scenarios) or [s.id for s in suite.scenarios]
    return {s: runs_of(suite.scenario(s), suite.defaults, given=runs) for s in chosen}


def set_runs(
    suite: Suite, *, runs: int | None = None, scenarios: Sequence[str] = ()
) -> dict[str, int | None]:
    """Scenario → the runs set for it (``--runs``, else its ``runs:``; ``None``: neither, the
    suite default would apply).

    Raises:
        SuiteError: a scenario the suite does not have.
    """
    chosen = list(scenarios) or [s.id for s in suite.scenarios]
    return {s: _set(suite.scenario(s), runs) for s in chosen}
