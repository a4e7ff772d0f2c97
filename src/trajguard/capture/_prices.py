"""What a model call costs, in US dollars: from a price table the suite gives, else from
litellm's price map, else unknown (``None``, never 0).

Prices are per million tokens: ``input`` (prompt tokens not served from a cache), ``output``
(completion tokens) and ``cached_input`` (prompt tokens served from the provider's cache; the
``input`` price when not given). Tokens are as the provider reports them (OpenAI's convention:
``cached_tokens`` is part of ``prompt_tokens``).

litellm's price map is read from the copy litellm ships (``model_prices_and_context_window_backup
.json`` in its package), read-only and without importing litellm: no network, no sleep, and the
user's own ``litellm.model_cost`` (which their code may have changed with ``register_model``) is
neither read nor touched. The same model string is therefore priced the same on every machine
with the same litellm version.

One unit: US dollars. A local or self-hosted model whose real cost is GPU time is priced by
converting that time to dollars per million tokens (``$/GPU-hour x GPU-seconds per million tokens
/ 3600``); a second unit would make budgets and comparisons across runs of different models
ambiguous.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from trajguard.atif import Trajectory

__all__ = [
    "Price",
    "PriceSource",
    "call_cost",
    "judge_cost",
    "price_of",
    "trajectory_cost",
    "user_cost",
]

_MAP_FILE = "model_prices_and_context_window_backup.json"
_MAP_LIMIT_BYTES = 64 << 20
_PER_MILLION = 1e6
_SIMULATED_USER = "simulated_user"  # trajguard.agent.users.SIMULATED_USER_KEY (agent is above)


class Price(BaseModel):
    """A model's price in US dollars per million tokens (a suite's ``prices:`` entry)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0, allow_inf_nan=False)
    """Per million prompt tokens not served from the cache."""
    output: float = Field(ge=0, allow_inf_nan=False)
    """Per million completion tokens."""
    cached_input: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    """Per million prompt tokens served from the provider's cache (``input`` when not given)."""


@dataclass(frozen=True)
class PriceSource:
    """A model's price and where it came from (``table``: the suite's; ``litellm``: the map)."""

    price: Price
    source: str


def price_of(model: str, prices: Mapping[str, Price] | None = None) -> PriceSource | None:
    """The price of ``model``: the table's entry, else litellm's map's, else ``None``.

    litellm's map is looked up under the model string, then under its name without the
    provider prefix (``openai/gpt-4o-mini`` → ``gpt-4o-mini``). The embedded model
    (``local/smollm2``) has a price only when the table gives one.
    """
    if prices and model in prices:
        return PriceSource(prices[model], "table")
    if model.startswith("local/"):
        return None
    known = _litellm_map()
    for key in (model, model.split("/", 1)[-1]):
        entry = known.get(key)
        if entry is not None:
            return PriceSource(entry, "litellm")
    return None


def call_cost(price: Price, prompt: int, completion: int, cached: int = 0) -> float:
    """The dollars of one call of ``prompt`` tokens (``cached`` of them from the cache) and
    ``completion`` tokens."""
    cached = min(max(cached, 0), prompt)
    cached_rate = price.input if price.cached_input is None else price.cached_input
    paid = (prompt - cached) * price.input + cached * cached_rate + completion * price.output
    return paid / _PER_MILLION


def trajectory_cost(
    trajectory: Trajectory, model: str, prices: Mapping[str, Price] | None = None
) -> float | None:
    """The dollars of a run's model calls, or ``None`` when some call's cost is unknown.

    A cost the trajectory records (``final_metrics.total_cost_usd``, else every model call's
    ``metrics.cost_usd``) is kept: the source knew what it paid. Otherwise each agent step
    with token metrics is one priced call, at the price of the run's model (``model``), else
    of the model the step names. A run without model calls costs ``None`` (nothing to price).
    """
    final = trajectory.final_metrics
    if final is not None and final.total_cost_usd is not None:
        return final.total_cost_usd
    calls = [s for s in trajectory.steps if s.source == "agent" and s.metrics is not None]
    if not calls:
        return None
    if all(s.metrics is not None and s.metrics.cost_usd is not None for s in calls):
        return sum(s.metrics.cost_usd or 0.0 for s in calls if s.metrics is not None)
    total = 0.0
    for step in calls:
        metrics = step.metrics
        assert metrics is not None
        if metrics.cost_usd is not None:
            total += metrics.cost_usd
            continue
        found = _first_price((model, step.model_name), prices)
        if found is None:
            return None
        total += call_cost(
            found.price,
            metrics.prompt_tokens or 0,
            metrics.completion_tokens or 0,
            metrics.cached_tokens or 0,
        )
    return total


def judge_cost(
    records: Iterable[Mapping[str, Any]], prices: Mapping[str, Price] | None = None
) -> float | None:
    """The dollars of a run's judge calls (records of the ``judge_calls`` column), or ``None``
    when there are none or some judge model has no price. A judgement taken from the cache
    made no call and costs nothing."""
    total, calls = 0.0, 0
    for record in records:
        if record.get("cached"):
            continue
        samples = record.get("samples") or []
        if not samples:
            continue
        found = price_of(str(record.get("model", "")), prices)
        if found is None:
            return None
        for sample in samples:
            calls += 1
            total += call_cost(
                found.price,
                int(sample.get("prompt_tokens") or 0),
                int(sample.get("completion_tokens") or 0),
            )
    return total if calls else None


def user_cost(
    trajectory: Trajectory | None, model: str | None, prices: Mapping[str, Price] | None = None
) -> float | None:
    """The dollars of a run's simulated user's calls, or ``None`` when it made none or one is
    not priced. Each user step a model wrote records its call under ``extra.simulated_user``
    (:data:`trajguard.agent.users.SIMULATED_USER_KEY`: model, tokens); it is priced at the
    suite's user model (``model``), else at the model the call names."""
    if trajectory is None:
        return None
    total, calls = 0.0, 0
    for step in trajectory.steps:
        call = (step.extra or {}).get(_SIMULATED_USER) if step.source == "user" else None
        if not isinstance(call, Mapping):
            continue
        named = call.get("model")
        found = _first_price((model, named if isinstance(named, str) else None), prices)
        if found is None:
            return None
        calls += 1
        total += call_cost(
            found.price,
            int(call.get("prompt_tokens") or 0),
            int(call.get("completion_tokens") or 0),
        )
    return total if calls else None


def _first_price(
    models: Iterable[str | None], prices: Mapping[str, Price] | None
) -> PriceSource | None:
    for model in models:
        if model:
            found = price_of(model, prices)
            if found is not None:
                return found
    return None


@lru_cache(maxsize=1)
def _litellm_map() -> dict[str, Price]:
    """litellm's bundled price map as prices per million tokens ({} without litellm)."""
    spec = importlib.util.find_spec("litellm")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    path = next((Path(d) / _MAP_FILE for d in locations if (Path(d) / _MAP_FILE).is_file()), None)
    if path is None or os.path.getsize(path) > _MAP_LIMIT_BYTES:
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {name: p for name, entry in raw.items() if (p := _entry_price(entry)) is not None}


def _entry_price(entry: object) -> Price | None:
    if not isinstance(entry, Mapping):
        return None
    rates = [entry.get(k) for k in ("input_cost_per_token", "output_cost_per_token")]
    cached = entry.get("cache_read_input_token_cost")
    if not all(isinstance(r, int | float) and r >= 0 for r in rates):
        return None
    return Price(
        input=float(rates[0]) * _PER_MILLION,  # type: ignore[arg-type]
        output=float(rates[1]) * _PER_MILLION,  # type: ignore[arg-type]
        cached_input=float(cached) * _PER_MILLION
        if isinstance(cached, int | float) and cached >= 0
        else None,
    )
