"""Asking the suite's pairwise judge about an A/B's pairs of runs, after the batch.

Pair ``i`` of a scenario is variant A's run ``i`` and variant B's run ``i`` (the same input). Per
pair, drawn from the two runs' seeds (reproducible, independent across pairs): which answer is
shown first, and whether the pair is also asked in the other order (a ``both_orders`` share of
pairs). Each call is sent with its own seed and bounded by the run's ``timeout_s``, as a judged
criterion is. Nothing is cached: every call is one pair's own (a pair is never answered with
another pair's judgement). A pair with a crashed run, or without a partner, is not judged. A
pair whose judge failed on any asked order is not judged either, and is counted apart (never a
tie, never the agent's). The judge's reasons are not kept; its error messages are redacted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from trajguard.comparison import AskedOrder, PairJudgement, Preferences
from trajguard.judge import PairwiseSettings, Preference, pair_draw, prefer
from trajguard.redaction import Redactor, environment_secrets
from trajguard.runner._loop import run_to_end

if TYPE_CHECKING:
    from trajguard.capture import ChatModel
    from trajguard.suite import Suite

__all__ = ["ask_pairs"]

ModelMaker = Callable[[PairwiseSettings, float], "ChatModel"]
"""The judge's client for its settings and the longest one attempt may wait."""


def _client(settings: PairwiseSettings, timeout_s: float) -> ChatModel:
    from trajguard.capture import LiteLLMModel

    return LiteLLMModel(settings.model, api_base=settings.api_base, timeout_s=timeout_s)


def ask_pairs(
    suite: Suite,
    runs: pd.DataFrame,
    variants: tuple[str, str],
    *,
    make_model: ModelMaker | None = None,
) -> Preferences:
    """The pairwise judge's preferences on the pairs of ``runs`` (variants A and B).

    Raises:
        ValueError: the suite has no ``pairwise`` judge.
    """
    if suite.pairwise is None:
        raise ValueError(f"suite {suite.name!r} has no pairwise judge")
    return run_to_end(_ask(suite, runs, variants, make_model or _client))


async def _ask(
    suite: Suite, runs: pd.DataFrame, variants: tuple[str, str], make_model: ModelMaker
) -> Preferences:
    assert suite.pairwise is not None
    block = suite.pairwise
    settings = block.settings
    pairs, not_paired = _pairs(runs, variants)
    inputs = {p["scenario"]: suite.resolve(p["scenario"], variants[0]).input for p in pairs}
    gate = asyncio.Semaphore(suite.defaults.concurrency)
    clients: dict[float, ChatModel] = {}

    async def judged(pair: dict[str, Any]) -> PairJudgement | str:
        timeout_s = min(suite.resolve(pair["scenario"], v).timeout_s for v in variants)
        if timeout_s not in clients:
            clients[timeout_s] = make_model(settings, timeout_s)
        client = clients[timeout_s]
        key = f"{pair['seed_a']}/{pair['seed_b']}"
        draw = pair_draw(key, pair["scenario"], pair["run_index"], "order")
        b_first = draw % 2 == 1
        both = pair_draw(key, pair["scenario"], pair["run_index"], "both") < (
            block.both_orders * 2**31
        )
        orders = (b_first, not b_first) if both else (b_first,)
        asked = []
        for shown_b_first in orders:
            first, second = (pair["b"], pair["a"]) if shown_b_first else (pair["a"], pair["b"])
            seed = pair_draw(key, pair["scenario"], pair["run_index"], f"call {shown_b_first}")
            async with gate:
                said = await _bounded(
                    prefer(
                        client,
                        settings,
                        task=inputs[pair["scenario"]],
                        first=first,
                        second=second,
                        seed=seed,
                    ),
                    timeout_s,
                    settings.model,
                )
            if said.choice is None:
                return said.error or "the judge gave no preference"
            asked.append(AskedOrder(b_first=shown_b_first, choice=said.choice))
        return PairJudgement(
            scenario=pair["scenario"], run_index=pair["run_index"], orders=tuple(asked)
        )

    from trajguard.capture import release_loop_clients

    try:
        outcomes = await asyncio.gather(*(judged(p) for p in pairs))
    finally:
        await release_loop_clients()
    redactor = Redactor(secrets=environment_secrets())
    errors = [redactor.text(o) for o in outcomes if isinstance(o, str)]
    return Preferences(
        rubric=redactor.text(settings.rubric),
        model=settings.model,
        judgements=tuple(o for o in outcomes if isinstance(o, PairJudgement)),
        judge_failures=len(errors),
        failures=tuple(dict.fromkeys(errors))[:3],
        not_paired=not_paired,
    )


async def _bounded(asked: Any, timeout_s: float, model: str) -> Preference:
    try:
        result: Preference = await asyncio.wait_for(asked, timeout_s)
    except TimeoutError:
        return Preference(
            choice=None,
            error=f"the judge {model} did not answer within the run's {timeout_s:g} s timeout",
        )
    return result


def _pairs(runs: pd.DataFrame, variants: tuple[str, str]) -> tuple[list[dict[str, Any]], int]:
    """The pairs to judge (both runs finished without a crash), and how many are not."""
    a, b = variants
    frame = runs[runs["variant"].isin(variants)]
    by_key: dict[tuple[str, int], dict[str, Any]] = {}
    for row in frame.to_dict("records"):
        slot = by_key.setdefault((str(row["scenario"]), int(row["run_index"])), {})
        slot[str(row["variant"])] = row
    pairs, not_paired = [], 0
    for (scenario, run_index), slot in sorted(by_key.items()):
        run_a, run_b = slot.get(a), slot.get(b)
        if run_a is None or run_b is None or _crashed(run_a) or _crashed(run_b):
            not_paired += 1
            continue
        pairs.append(
            {
                "scenario": scenario,
                "run_index": run_index,
                "a": _text(run_a["final_output"]),
                "b": _text(run_b["final_output"]),
                "seed_a": run_a["seed"],
                "seed_b": run_b["seed"],
            }
        )
    return pairs, not_paired


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _crashed(row: dict[str, Any]) -> bool:
    value = row.get("crashed")
    return value is not None and not pd.isna(value) and bool(value)
