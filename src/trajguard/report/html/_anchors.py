"""Links into a report page's run explorer: the fragment ``explorer.js`` reads when the page opens.

``#run=RUN&batch=BATCH&side=SIDE`` opens one run (its id within its batch, ``baseline`` or
``candidate``); ``#explore=SCENARIO&passed=false&side=SIDE`` shows a scenario's runs filtered.
Every value is percent-encoded, so a hostile run id can neither end the fragment nor the link
that carries it.
"""

from __future__ import annotations

from urllib.parse import quote

from trajguard.results import RunRef

__all__ = ["failed_runs_fragment", "run_fragment"]


def _pairs(*pairs: tuple[str, str]) -> str:
    return "#" + "&".join(f"{key}={quote(value, safe='')}" for key, value in pairs)


def run_fragment(run: RunRef) -> str:
    """The fragment that opens ``run`` in the page's run explorer."""
    return _pairs(("run", run.run_id), ("batch", run.batch_id), ("side", run.side))


def failed_runs_fragment(scenario: str, side: str = "candidate") -> str:
    """The fragment that lists the failed runs of ``scenario`` on ``side``."""
    return _pairs(("explore", scenario), ("passed", "false"), ("side", side))
