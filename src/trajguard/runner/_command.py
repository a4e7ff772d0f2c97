"""The ``command`` agent kind: an external process (never a shell string).

Placeholders in argv, and the same values in the environment as ``TRAJGUARD_<NAME>``:
``{output}`` (where it may write an ATIF file), ``{agent_error}`` (where it may write
``{"reason": "max_steps", "message": "…"}`` when it stopped without an answer: the run is then an
``agent_error`` with that reason), ``{state}`` (a JSON file holding the run's shared state:
the scenario's ``state:``, ``{}`` without one), ``{final_state}`` (where it may write the state
as it left it, as JSON: the run's final state, which ``final_state`` criteria check; a command
that writes none leaves the state as it was given), ``{input}``, ``{seed}``, ``{scenario}``,
``{variant}``, ``{temperature}``, ``{max_tokens}``, ``{max_steps}``, ``{system_prompt}``,
``{params.NAME}`` (all parameters as JSON in ``TRAJGUARD_PARAMS``), and, unless the agent brings
its own model, ``{model}``, ``{litellm_model}``, ``{api_base}`` and ``{api_key}``; in a
conversation (``turns:``/``user:``), ``{conversation_url}`` (:mod:`._conversation`). ``{api_base}``
is the run's wire endpoint, so the process's model calls are captured whatever it is written in:
an ATIF file written to ``{output}`` is the run's trajectory; without one, the calls seen at the
endpoint are. The process runs in a session of its own, so a timeout kills it and everything it
started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trajguard._json import MAX_DOCUMENT_BYTES, check_regular_file, read_json
from trajguard.atif import Trajectory, load_trajectory
from trajguard.errors import AgentFailure, TrajguardError
from trajguard.runner._captured import RunCapture
from trajguard.runner._context import WIRE_API_KEY
from trajguard.suite import CommandAgent, ResolvedScenario

__all__ = ["run_command"]

_AGENT_ERROR_BYTES = 1024 * 1024


def _substitute(argv: list[str], values: Mapping[str, str]) -> list[str]:
    out = []
    for arg in argv:
        for key, value in values.items():
            arg = arg.replace("{" + key + "}", value)
        out.append(arg)
    return out


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _values(
    resolved: ResolvedScenario, spec: CommandAgent, *, seed: int, output: Path, api_base: str | None
) -> dict[str, str]:
    values = {
        "output": str(output),
        "agent_error": str(output.with_name("agent_error.json")),
        "state": str(output.with_name("state.json")),
        "final_state": str(output.with_name("final_state.json")),
        "input": resolved.input,
        "seed": str(seed),
        "scenario": resolved.scenario,
        "variant": resolved.variant,
        "temperature": _text(resolved.temperature),
        "max_tokens": _text(resolved.max_tokens),
        "max_steps": str(resolved.max_steps),
        "system_prompt": resolved.system_prompt or "",
    }
    if spec.uses_model:  # else it brings its own model: hand it none
        values |= {
            "model": resolved.model,
            "litellm_model": f"openai/{resolved.model}",
            "api_base": api_base or "",
            "api_key": WIRE_API_KEY,
        }
    return values


async def run_command(
    resolved: ResolvedScenario,
    spec: CommandAgent,
    *,
    seed: int,
    api_base: str | None,
    capture: RunCapture,
    state: dict[str, Any] | None = None,
) -> Trajectory:
    """Run the command once: the ATIF file it wrote, else its calls seen at the wire.
    ``state`` is written to ``{state}`` and replaced by what it wrote to ``{final_state}``.

    Raises:
        AgentFailure: it exited non-zero, wrote an invalid trajectory, or left nothing to read.
    """
    with tempfile.TemporaryDirectory(prefix="trajguard-run-") as workdir:
        output = Path(workdir) / "trajectory.json"
        values = _values(resolved, spec, seed=seed, output=output, api_base=api_base)
        state = {} if state is None else state
        Path(values["state"]).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
        if capture.session is not None and capture.session.conversation is not None:
            values["conversation_url"] = capture.session.conversation_url
        params = {f"params.{k}": _text(v) for k, v in resolved.params.items()}
        env = {
            **os.environ,
            **spec.env,
            **{f"TRAJGUARD_{key.upper()}": value for key, value in values.items()},
            "TRAJGUARD_PARAMS": json.dumps(resolved.params, ensure_ascii=False),
        }
        process = await asyncio.create_subprocess_exec(
            *_substitute(spec.argv, {**values, **params}),
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
        _read_agent_error(Path(values["agent_error"]), capture)
        _read_final_state(Path(values["final_state"]), state)
        written = _read_output(output) if os.path.lexists(output) else None
        if process.returncode != 0:
            failure = AgentFailure(f"command exited with status {process.returncode}: {tail}")
            failure.trajectory = (
                capture.stamp(written, source="atif_file")
                if written is not None
                else await capture.trajectory(error=failure)
            )
            raise failure
        if written is not None:
            return capture.stamp(written, source="atif_file")
        captured = await capture.trajectory()
        if captured is None and not spec.uses_model:
            raise AgentFailure(
                "command exited 0 but wrote no ATIF file to {output} (with uses_model: false "
                f"it must write one): {tail}"
            )
        if captured is None:
            raise AgentFailure(
                "command exited 0 but wrote no ATIF file to {output} and made no model call "
                f"through {{api_base}}: {tail}"
            )
        return captured


def _read_agent_error(path: Path, capture: RunCapture) -> None:
    """The reason the command gave for ending without an answer, if it wrote one."""
    if not os.path.lexists(path):
        return
    try:
        declared = read_json(path, max_bytes=_AGENT_ERROR_BYTES, max_depth=8)
    except (OSError, ValueError) as exc:  # a FIFO or a device, too large, not JSON
        raise AgentFailure(f"command wrote an unreadable {{agent_error}} file: {exc}") from None
    if not isinstance(declared, dict) or not isinstance(declared.get("reason"), str):
        raise AgentFailure(
            'the {agent_error} file must hold {"reason": "...", "message": "..."}, got '
            f"{str(declared)[:200]}"
        )
    capture.agent_error(declared["reason"], str(declared.get("message", "")))


def _read_final_state(path: Path, state: dict[str, Any]) -> None:
    """The state the command left, if it wrote one, in place of the one it was given."""
    if not os.path.lexists(path):
        return
    try:
        written = read_json(path, max_bytes=MAX_DOCUMENT_BYTES, max_depth=64)
    except (OSError, ValueError) as exc:  # a FIFO or a device, too large, not JSON
        raise AgentFailure(f"command wrote an unreadable {{final_state}} file: {exc}") from None
    if not isinstance(written, dict):
        raise AgentFailure(
            f"the {{final_state}} file must hold a JSON object, got {str(written)[:200]}"
        )
    state.clear()
    state.update(written)


def _read_output(path: Path) -> Trajectory | None:
    try:
        check_regular_file(path, max_bytes=MAX_DOCUMENT_BYTES)  # a FIFO would hold the batch
    except OSError as exc:
        raise AgentFailure(f"command's {{output}} is not a trajectory file: {exc}") from None
    try:
        return load_trajectory(path)
    except TrajguardError as exc:
        raise AgentFailure(f"command wrote an invalid trajectory: {exc}") from None


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
