"""The ``judge`` pass criterion: a model grades the run's final output (or its trajectory)
against a rubric::

    pass:
      - judge:
          rubric: "The answer names Paris as the capital of France."
          model: openai/gpt-4o-mini   # any litellm model string; the embedded model by default
          samples: 3                  # verdicts per run (3 by default; their agreement measured)
          pass_if: majority           # majority (default) | all | any
          on: final_output            # or trajectory
          temperature: 0.7            # the judge's settings (provider defaults when unset)
          max_tokens: 64

Every field is part of the scenario's config hash (a changed judge is a changed scenario).
``samples`` defaults to :data:`DEFAULT_SAMPLES` (3): with one verdict per run nothing says how
often the judge contradicts itself, nor whether answer length explains it better. It used to
default to 1 (:data:`EARLIER_DEFAULT_SAMPLES`), so a judged suite that leaves it unset has a new
config hash (a batch started before cannot be resumed: the error says why).
The embedded model as judge is for the plumbing (docs/how-to/datasets-and-judges.md).
A judge that cannot decide (unreachable, no verdict in its answer) leaves the criterion not
judged, with the reason: the run is then a ``harness_error`` unless another criterion failed it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trajguard.core.shape import Shape
from trajguard.judge import (
    Judgement,
    JudgeSettings,
    decide,
    judgement_record,
    trajectory_text,
)
from trajguard.local_model import MODEL_STRING, is_local_model

__all__ = [
    "DEFAULT_SAMPLES",
    "EARLIER_DEFAULT_SAMPLES",
    "EMBEDDED_JUDGE_MEASURED",
    "JudgeCriterion",
    "JudgeFields",
    "JudgeFunction",
    "check_judge",
    "judge_outcome",
    "judged_text",
]

EMBEDDED_JUDGE_MEASURED = (
    "it passed 12 of 12 clearly wrong answers, every empty one and every off-topic one when "
    "measured (benchmarks/bench_embedded_judge.py)"
)
"""What the embedded model does as a judge, measured (benchmarks/RESULTS.md, "What the
embedded model can judge"): said wherever a suite or a report uses it as one."""

DEFAULT_SAMPLES = 3
EARLIER_DEFAULT_SAMPLES = 1
"""The default of ``samples`` before :data:`DEFAULT_SAMPLES` (the hash of a batch started then)."""

JudgeFunction = Callable[[JudgeSettings, str], Judgement]
"""How a batch has a text judged (blocking; cached by the batch)."""


class JudgeFields(Protocol):
    """What a judge of either kind (criterion, pairwise) is asked through."""

    @property
    def rubric(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def api_base(self) -> str | None: ...


def check_judge(judge: JudgeFields, *, who: str, does: str) -> None:
    """Refuse a judge no model can be asked as: an empty rubric or model string, or an
    endpoint given to the embedded model (which runs its own server).

    Raises:
        ValueError: naming ``who`` (e.g. "the judge") and what its rubric should say it ``does``.
    """
    if not judge.rubric.strip():
        raise ValueError(f"{who}'s rubric is empty: say what {does}")
    if not judge.model.strip():
        raise ValueError(f"{who}'s model must be a litellm model string")
    if is_local_model(judge.model) and judge.api_base is not None:
        raise ValueError(f"{MODEL_STRING} runs its own server; remove {who}'s api_base")


class JudgeCriterion(BaseModel):
    """A model's verdict on the run: ``samples`` verdicts combined by ``pass_if``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["judge"] = "judge"
    rubric: str = Field(min_length=1)
    model: str = MODEL_STRING
    api_base: str | None = None
    """The judge's OpenAI-compatible endpoint (not for the embedded model)."""
    samples: int = Field(default=DEFAULT_SAMPLES, ge=1, le=20)
    pass_if: Literal["majority", "all", "any"] = "majority"  # noqa: S105 (not a password)
    on: Literal["final_output", "trajectory"] = "final_output"
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _reachable(self) -> JudgeCriterion:
        check_judge(self, who="the judge", does="a passing answer does")
        return self

    @property
    def label(self) -> str:
        """``judge: "<rubric>"`` (cut to 60 characters)."""
        rubric = " ".join(self.rubric.split())
        shown = rubric if len(rubric) <= 60 else rubric[:59] + "…"
        return f"judge: {json.dumps(shown, ensure_ascii=False)}"

    @property
    def settings(self) -> JudgeSettings:
        return JudgeSettings(
            rubric=self.rubric,
            model=self.model,
            api_base=self.api_base,
            samples=self.samples,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )


def judged_text(criterion: JudgeCriterion, trajectory: Mapping[str, Any], shape: Shape) -> str:
    """What the judge reads: the final output, or the trajectory as text."""
    if criterion.on == "trajectory":
        return trajectory_text(trajectory)
    return shape.final_output or ""


def judge_outcome(
    criterion: JudgeCriterion,
    trajectory: Mapping[str, Any],
    shape: Shape,
    judge: JudgeFunction | None,
) -> tuple[bool | None, str, Mapping[str, Any] | None]:
    """Whether the judge passed the run (``None``: it could not decide), why not, and the
    record of its calls."""
    if judge is None:
        return None, "not judged: no judge model outside a batch", None
    judgement = judge(criterion.settings, judged_text(criterion, trajectory, shape))
    if judgement.error is not None:
        record = judgement_record(
            criterion.label, criterion.settings, criterion.pass_if, judgement, None
        )
        return None, f"not judged: {judgement.error}", record
    verdicts = judgement.verdicts
    held = decide(verdicts, criterion.pass_if)
    record = judgement_record(
        criterion.label, criterion.settings, criterion.pass_if, judgement, held
    )
    if held:
        return True, "", record
    passes = sum(verdicts)
    reasons = [s.reason for s in judgement.samples if s.verdict is False and s.reason]
    why = f" ({reasons[0]})" if reasons else ""
    return (
        False,
        f"the judge passed {passes} of {len(verdicts)} verdicts, {criterion.pass_if} needed{why}",
        record,
    )
