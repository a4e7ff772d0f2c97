"""The suite's ``pairwise`` judge: in ``trajguard ab``, a model says which of two answers to the
same input is better (variant A's run ``i`` against variant B's run ``i`` of each scenario)::

    pairwise:
      rubric: "The answer is correct and says how it got there."
      model: openai/gpt-4o-mini    # any litellm model string; the embedded model by default
      both_orders: 0.5             # share of pairs also asked in the other order (position bias)
      temperature: 0.0             # the judge's settings (provider defaults when unset)
      max_tokens: 64

The order the two answers are shown in is drawn per pair; the judge never learns which variant
gave which. Only ``trajguard ab`` reads it (a nightly compares one variant with its baseline).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trajguard.judge import PairwiseSettings
from trajguard.local_model import MODEL_STRING
from trajguard.suite._judge import check_judge

__all__ = ["PairwiseJudge"]


class PairwiseJudge(BaseModel):
    """A model's preference between the two variants' answers to one input, in ``ab``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rubric: str = Field(min_length=1)
    """What makes one answer better than the other."""
    model: str = MODEL_STRING
    """The judge: any litellm model string."""
    api_base: str | None = None
    """The judge's OpenAI-compatible endpoint (not for the embedded model)."""
    both_orders: float = Field(default=0.5, ge=0.0, le=1.0)
    """Share of pairs also asked with the answers swapped: measures the judge's position bias
    (a judge that contradicts itself across the orders makes that pair a tie), which is then
    taken out of the pairs asked once; 1 asks every pair twice (the most power against a
    biased judge, twice the calls)."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _reachable(self) -> PairwiseJudge:
        check_judge(self, who="the pairwise judge", does="a better answer does")
        return self

    @property
    def settings(self) -> PairwiseSettings:
        return PairwiseSettings(
            rubric=self.rubric,
            model=self.model,
            api_base=self.api_base,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
