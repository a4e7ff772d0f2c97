"""The ``command`` agent kind: an external process (never a shell string) that writes ATIF.

``{output}``, ``{input}``, ``{seed}`` (and, unless the agent brings its own model, ``{model}`` and
``{api_base}``) are substituted into argv and set in the environment as ``TRAJGUARD_OUTPUT`` …
The process runs in a session of its own, so a timeout kills it and everything it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
from collections.abc import Mapping
from pathlib import Path

from trajguard.atif import Trajectory, load_trajectory
from trajguard.errors import AgentFailure, TrajguardError
from trajguard.suite import CommandAgent, ResolvedScenario

__all__ = ["run_command"]


def _substitute(argv: list[str], values: Mapping[str, str]) -> list[str]:
    out = []
    for arg in argv:
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


async def run_command(
    resolved: ResolvedScenario, spec: CommandAgent, *, seed: int, api_base: str | None
) -> Trajectory:
    """Run the command once and read the trajectory it wrote.

    Raises:
        AgentFailure: it exited non-zero, wrote nothing, or wrote an invalid trajectory.
    """
    with tempfile.TemporaryDirectory(prefix="trajguard-run-") as workdir:
        output = Path(workdir) / "trajectory.json"
        values = {"output": str(output), "input": resolved.input, "seed": str(seed)}
        if spec.uses_model:  # else it brings its own model: hand it none
            values |= {"model": resolved.model, "api_base": api_base or ""}
        env = {
            **os.environ,
            **spec.env,
            **{f"TRAJGUARD_{key.upper()}": value for key, value in values.items()},
        }
        process = await asyncio.create_subprocess_exec(
            *_substitute(spec.argv, values),
            cwd=resolved.base_dir,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            _, stderr = await process.communicate()
        except asyncio.CancelledError:
            _kill_group(process)
            await process.wait()
            raise
        tail = stderr.decode(errors="replace")[-1000:].strip()
        trajectory = _read_output(output) if output.exists() else None
        if process.returncode != 0:
            raise AgentFailure(
                f"command exited with status {process.returncode}: {tail}", trajectory=trajectory
            )
        if trajectory is None:
            raise AgentFailure(f"command exited 0 but wrote no ATIF file to {{output}}: {tail}")
        return trajectory


def _read_output(path: Path) -> Trajectory | None:
    try:
        return load_trajectory(path)
    except TrajguardError as exc:
        raise AgentFailure(f"command wrote an invalid trajectory: {exc}") from None


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
