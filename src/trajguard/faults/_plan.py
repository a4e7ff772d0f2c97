"""Which calls of a run meet which fault: a pure function of the run and the suite.

A plan is a seed and the fault specs. Whether the Nth call of tool T meets spec i is decided
by hashing (seed, i, T, N) to a number in [0, 1) and comparing it with the spec's probability
(or by N == at_call), so the decision does not depend on timing, on earlier calls or on which
process runs the agent. The seed is derived from the batch seed, the scenario, the run index and
the faults' configuration — not the variant — so two variants' runs of the same index meet the
same faults, and ``--seed`` reproduces a batch's faults exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from trajguard.faults._spec import FaultSpec

__all__ = ["FaultPlan", "plan_faults"]


def _unit(*parts: object) -> float:
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True, kw_only=True)
class FaultPlan:
    """The faults of one run."""

    seed: int
    specs: tuple[FaultSpec, ...]

    def fault_for(self, tool: str, call: int) -> FaultSpec | None:
        """The fault the ``call``-th call (from 1) of ``tool`` meets, or ``None``; the first
        matching spec wins."""
        for index, spec in enumerate(self.specs):
            if not spec.hits(tool):
                continue
            if spec.at_call is not None:
                if spec.at_call == call:
                    return spec
            elif _unit(self.seed, index, tool, call) < (spec.probability or 0.0):
                return spec
        return None


def plan_faults(
    specs: Sequence[FaultSpec], *, batch_seed: int, scenario: str, run_index: int
) -> FaultPlan:
    """The plan of one run (see the module docstring)."""
    config = json.dumps([spec.model_dump(mode="json") for spec in specs], sort_keys=True)
    digest = hashlib.sha256(
        "\x1f".join(map(str, (batch_seed, scenario, run_index, config))).encode()
    ).digest()
    return FaultPlan(seed=int.from_bytes(digest[:4], "big"), specs=tuple(specs))
