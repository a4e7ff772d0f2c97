"""Advice on a suite that is valid but whose verdicts would say less than they could (pure)."""

from __future__ import annotations

from trajguard.local_model import is_local_model
from trajguard.suite._judge import EMBEDDED_JUDGE_MEASURED, JudgeCriterion
from trajguard.suite._models import BASE_VARIANT, Suite

__all__ = ["judge_advice"]


def judge_advice(suite: Suite) -> list[str]:
    """One line per (scenario, variant) judge criterion that gives one verdict per run: its
    noise cannot be measured, so the report cannot say how much of a pass-rate change is the
    judge's (``samples: 3`` measures it); and one line for the judge criteria whose judge is
    the embedded model, which passes nearly every answer (docs/how-to/datasets-and-judges.md)."""
    lines: list[str] = []
    embedded = sorted(
        {
            criterion.label
            for scenario in suite.scenarios
            for variant in sorted({BASE_VARIANT, *suite.variants, *scenario.variants})
            for criterion in suite.resolve(scenario.id, variant).pass_criteria
            if isinstance(criterion, JudgeCriterion) and is_local_model(criterion.model)
        }
    )
    if embedded:
        more = f" and {len(embedded) - 1} more judge criteria" if embedded[1:] else ""
        lines.append(
            f"{embedded[0]}{more} judged by the embedded model: {EMBEDDED_JUDGE_MEASURED}; it "
            "checks the plumbing, not the rubric: name a capable judge `model:` to gate on them"
        )
    for scenario in suite.scenarios:
        variants = sorted({BASE_VARIANT, *suite.variants, *scenario.variants})
        labels: dict[str, list[str]] = {}
        for variant in variants:
            for criterion in suite.resolve(scenario.id, variant).pass_criteria:
                if isinstance(criterion, JudgeCriterion) and criterion.samples == 1:
                    labels.setdefault(criterion.label, []).append(variant)
        for label, where in labels.items():
            shown = "" if where == variants else f" (variants: {', '.join(where)})"
            lines.append(
                f"scenario {scenario.id}{shown}: {label} gives one verdict per run (samples: 1): "
                "the judge's noise is unknown and the report cannot say how much of a pass-rate "
                "change is the judge's; add `samples: 3` to the judge to measure it"
            )
    return lines
