"""``--executor`` and the ``--ray-…`` options: where a batch's runs execute."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from trajguard.errors import UsageError

if TYPE_CHECKING:  # trajguard.runner imports pandas: the command imports it when it runs
    from trajguard.runner import ExecutorChoice

__all__ = ["add_executor_arguments", "executor_choice"]


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "executor", "where the runs execute (default: the suite's defaults.executor, else local)"
    )
    group.add_argument(
        "--executor",
        choices=("local", "ray"),
        help="local: in this process; ray: each run a Ray task on a cluster "
        "(pip install 'trajguard[ray]')",
    )
    group.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster's HOST:PORT (default: $RAY_ADDRESS, else the cluster started on "
        "this machine with `ray start --head`)",
    )
    group.add_argument("--ray-cpus", type=float, metavar="N", help="CPUs each run holds (1)")
    group.add_argument(
        "--ray-resource",
        action="append",
        default=[],
        metavar="NAME=AMOUNT",
        help="a custom Ray resource each run holds, e.g. model_endpoint=1 (repeat)",
    )
    group.add_argument(
        "--ray-embedded-model",
        choices=("node", "driver"),
        help="where local/smollm2 runs: a server on every node (node, the default) or this "
        "process's, at one address (driver)",
    )
    group.add_argument(
        "--ray-max-retries",
        type=int,
        metavar="N",
        help="times Ray reruns a run whose worker died (3); a run still lost is recorded as a "
        "harness error and redone by --resume",
    )


def executor_choice(args: argparse.Namespace) -> ExecutorChoice:
    """``--executor`` and the ``--ray-…`` options (checked by :class:`ExecutorChoice`)."""
    from trajguard.runner import ExecutorChoice

    given = {
        "address": args.ray_address,
        "num_cpus": args.ray_cpus,
        "embedded_model": args.ray_embedded_model,
        "max_retries": args.ray_max_retries,
    }
    ray = {name: value for name, value in given.items() if value is not None}
    if args.ray_resource:
        ray["resources"] = dict(_resource(item) for item in args.ray_resource)
    return ExecutorChoice(kind=args.executor, ray=ray)


def _resource(item: str) -> tuple[str, float]:
    name, sep, amount = item.partition("=")
    try:
        value = float(amount) if sep and name else None
    except ValueError:
        value = None
    if value is None:
        raise UsageError(f"--ray-resource {item!r}: expected NAME=AMOUNT, e.g. model_endpoint=1")
    return name, value
