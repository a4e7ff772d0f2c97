"""Which runs a batch makes, in what order, with which seeds.

Runs are interleaved (run 1 of every scenario and variant, then run 2, …) so that drift in the
model server hits every arm alike. Each run has its own seed, derived from the batch seed and the
run id: batches are independent by default (a random batch seed) and reproducible with a fixed
one; a resumed batch re-derives the same seeds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from trajguard.runner._options import BatchOptions
from trajguard.suite import ResolvedScenario, Suite, runs_per_scenario

__all__ = ["Plan", "RunSpec", "derive_seed", "plan_batch"]


def derive_seed(*parts: object) -> int:
    """A 31-bit seed derived from the parts (stable across processes and platforms)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


@dataclass(frozen=True, kw_only=True)
class RunSpec:
    """One planned run: which scenario, which variant, which repetition, which seed."""

    run_id: str
    scenario: str
    variant: str
    run_index: int
    seed: int
    config_hash: str


Plan = list[tuple[RunSpec, ResolvedScenario]]


def plan_batch(suite: Suite, options: BatchOptions, *, batch_seed: int) -> Plan:
    """Every run of the batch, interleaved across scenarios and variants."""
    runs = runs_per_scenario(suite, runs=options.runs, scenarios=options.scenarios)
    arms: list[ResolvedScenario] = []
    for scenario_id, scenario_runs in runs.items():
        for variant in options.variants:
            resolved = suite.resolve(scenario_id, variant)
            updates: dict[str, Any] = {"runs": scenario_runs}
            if options.model:
                updates["model"] = options.model
                updates["api_base"] = options.api_base
            if options.timeout_s:
                updates["timeout_s"] = options.timeout_s
            arms.append(resolved.model_copy(update=updates))
    plan: Plan = []
    for index in range(max((arm.runs for arm in arms), default=0)):
        for arm in arms:
            if index < arm.runs:
                run_id = f"{arm.scenario}/{arm.variant}/{index}"
                spec = RunSpec(
                    run_id=run_id,
                    scenario=arm.scenario,
                    variant=arm.variant,
                    run_index=index,
                    seed=derive_seed(batch_seed, run_id),
                    config_hash=arm.config_hash(),
                )
                plan.append((spec, arm))
    return plan
