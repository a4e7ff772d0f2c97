"""The suite's settings shared by every model: the strict base, the per-run timeout, and where
a batch's runs execute (``defaults.executor``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "MAX_TIMEOUT_S",
    "ExecutorSettings",
    "LocalExecutorSettings",
    "RayExecutorSettings",
    "Strict",
    "TimeoutSeconds",
]


class Strict(BaseModel):
    # no field of a suite takes infinity or NaN (`timeout_s: .inf` would never time out)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


MAX_TIMEOUT_S = 7 * 24 * 3600.0
TimeoutSeconds = Annotated[float, Field(gt=0, le=MAX_TIMEOUT_S, allow_inf_nan=False)]
"""A per-run timeout, in the suite (``timeout_s``) and on the command line (``--timeout``):
seconds above 0, at most a week, finite."""


class LocalExecutorSettings(Strict):
    """Every run in this process, ``concurrency`` at a time (the default)."""

    kind: Literal["local"] = "local"


_RAY_BUILTIN_RESOURCES = frozenset({"CPU", "GPU", "memory", "object_store_memory"})


class RayExecutorSettings(Strict):
    """Every run a Ray task on a cluster (``pip install 'trajguard[ray]'``;
    docs/how-to/ray.md)."""

    kind: Literal["ray"] = "ray"
    address: str | None = None
    """The cluster (``host:port`` of its head); by default ``$RAY_ADDRESS``, else the cluster
    started on this machine with ``ray start --head``."""
    num_cpus: float = Field(default=1.0, gt=0, le=1024)
    """CPUs each run holds on its node."""
    resources: dict[str, Annotated[float, Field(gt=0, le=1_000_000)]] = Field(default_factory=dict)
    """Custom resources each run holds, e.g. ``{model_endpoint: 1}`` for nodes started with
    ``ray start --resources '{"model_endpoint": 2}'``."""
    embedded_model: Literal["node", "driver"] = "node"
    """Where ``local/smollm2`` runs: one server per node, or the one of this process."""
    max_retries: int = Field(default=3, ge=0, le=100)
    """Times Ray reruns a run whose worker died (the same run, with the same seed)."""

    @field_validator("resources")
    @classmethod
    def _custom_resources_only(cls, resources: dict[str, float]) -> dict[str, float]:
        builtin = sorted(_RAY_BUILTIN_RESOURCES.intersection(resources))
        if builtin:
            raise ValueError(
                f"{builtin} are Ray's own resources, not custom ones: declare CPUs with num_cpus"
            )
        return resources


ExecutorSettings = Annotated[
    LocalExecutorSettings | RayExecutorSettings, Field(discriminator="kind")
]
"""Where a batch's runs execute (``defaults.executor``; ``--executor`` overrides it)."""
