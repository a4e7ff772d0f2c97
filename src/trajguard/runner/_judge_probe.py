"""The judges' probe before a batch: each ``judge`` criterion of the plan grades answers that
should fail most rubrics — an empty answer and an off-topic one — before the first run.

A judge that passes them passes answers it never read: its verdicts on the agent's answers say
little. The probe neither refuses the batch nor changes a run (a rubric such as "the answer
reveals no secret" is met by saying nothing); it is recorded in the manifest
(``judge_probes``) and the report's headline names the judge ("Judge that cannot judge"). The
probe's calls are the judge's own, sent with the batch's seed, bounded by the longest
``timeout_s`` of the runs that use the judge; a probe that fails records why (redacted like
every stored string: a judge may echo its key).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from trajguard.judge import JudgeSettings, decide, grade
from trajguard.local_model import is_local_model
from trajguard.redaction import Redactor, environment_secrets
from trajguard.runner._judging import Judges
from trajguard.runner._plan import Plan
from trajguard.suite import JudgeCriterion

__all__ = ["PROBE_ANSWERS", "probe_judges", "probe_warnings"]

PROBE_ANSWERS: Mapping[str, str] = {
    "empty": "",
    "off-topic": "The museum opens at nine on weekdays and at ten on Sundays.",
}
"""The answers every judge is asked about before a batch, by name."""


async def probe_judges(plan: Plan, judges: Judges, *, seed: int) -> list[dict[str, Any]]:
    """One record per distinct judge criterion of ``plan``: its verdicts on each probe answer."""
    found: dict[JudgeSettings, tuple[JudgeCriterion, set[str], float]] = {}
    for _, arm in plan:
        for criterion in arm.pass_criteria:
            if isinstance(criterion, JudgeCriterion):
                _, scenarios, bound = found.get(criterion.settings, (criterion, set(), 0.0))
                scenarios.add(arm.scenario)
                found[criterion.settings] = (criterion, scenarios, max(bound, arm.timeout_s))
    records = []
    for settings, (criterion, scenarios, bound) in found.items():
        probes = [
            await _probe(judges, criterion, name, text, seed=seed, timeout_s=bound)
            for name, text in PROBE_ANSWERS.items()
        ]
        records.append(
            {
                "criterion": criterion.label,
                "model": settings.model,
                "embedded": is_local_model(settings.model),
                "samples": settings.samples,
                "pass_if": criterion.pass_if,
                "scenarios": sorted(scenarios),
                "probes": probes,
            }
        )
    return records


def probe_warnings(records: list[dict[str, Any]]) -> tuple[str, ...]:
    """One line per probed judge that passed a probe answer (what ``trajguard run`` prints)."""
    lines = []
    for record in records:
        passed = [p["answer"] for p in record.get("probes") or () if p.get("passed")]
        if passed:
            lines.append(
                f"{record['criterion']} ({record['model']}) passed "
                f"{' and '.join(f'the {name} answer' for name in passed)} before the batch: it "
                "may pass answers it never read (the report names it: Judge that cannot judge)"
            )
    return tuple(lines)


async def _probe(
    judges: Judges,
    criterion: JudgeCriterion,
    name: str,
    text: str,
    *,
    seed: int,
    timeout_s: float,
) -> dict[str, Any]:
    settings = criterion.settings
    try:
        judgement = await asyncio.wait_for(
            grade(judges.model(settings), settings, text, seed=seed), timeout_s
        )
    except TimeoutError:
        late = f"the judge {settings.model} did not answer within {timeout_s:g} s"
        return {"answer": name, "verdicts": [], "passed": None, "error": late}
    verdicts = [s.as_record()["verdict"] for s in judgement.samples]
    error = judgement.error
    passed = None if error is not None else decide(judgement.verdicts, criterion.pass_if)
    if error is not None:
        error = Redactor(secrets=environment_secrets()).text(error)
    return {"answer": name, "verdicts": verdicts, "passed": passed, "error": error}
