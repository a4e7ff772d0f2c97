"""Where a model call goes, and how long to wait before retrying it."""

from __future__ import annotations

import random
from typing import Any

__all__ = ["Route", "backoff_delay"]

_MAX_BACKOFF_S = 30.0


def backoff_delay(attempt: int, *, base_s: float, rng: random.Random | None = None) -> float:
    """The wait before retry number ``attempt`` (1-based): exponential, jittered, capped.

    Args:
        attempt: 1 for the wait after the first failure, 2 after the second, ...
        base_s: the wait before the first retry, before jitter.
        rng: the random source for the jitter (``random`` module by default).

    Returns:
        ``base_s * 2**(attempt-1)`` scaled by a random factor in [0.5, 1.0], at most 30 s.
    """
    jitter = (rng or random).uniform(0.5, 1.0)
    return float(min(_MAX_BACKOFF_S, base_s * 2 ** (attempt - 1)) * jitter)


class Route:
    """Where a call goes: the litellm model string, endpoint and key."""

    __slots__ = ("api_base", "api_key", "model")

    def __init__(self, model: str, api_base: str | None, api_key: str | None) -> None:
        self.model = model
        self.api_base = api_base
        self.api_key = api_key

    def __repr__(self) -> str:
        return f"Route({self.model!r}, {self.api_base!r})"

    @property
    def endpoint(self) -> str:
        return self.api_base or "the provider's default endpoint"

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"model": self.model}
        if self.api_base is not None:
            params["api_base"] = self.api_base
        if self.api_key is not None:
            params["api_key"] = self.api_key
        return params
