"""One run as a person reads it: its steps, final output, criteria, faults and error.

Every string of the run (model text, tool arguments and results, errors) is shown through
:func:`trajguard._text.printable`: control characters and escape sequences appear escaped,
never reach the terminal as such. Long texts are folded; the error is shown whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from trajguard._text import printable
from trajguard.errors import StoreError
from trajguard.outcome import is_crash_row
from trajguard.runs._listing import CRASH_CRITERION
from trajguard.store import criterion_outcomes, stored_trajectory

__all__ = ["FOLD_CHARS", "FOLD_LINES", "fold", "render_run"]

FOLD_LINES = 12
"""Lines of a long text shown before the rest is folded away."""
FOLD_CHARS = 400
"""Characters of one line shown before the rest of it is folded away."""


def fold(text: str, *, lines: int = FOLD_LINES, chars: int = FOLD_CHARS) -> list[str]:
    """A long text as its first ``lines`` lines (each cut at ``chars``), then a line saying
    how much was left out; every line :func:`printable`."""
    all_lines = text.split("\n")
    shown: list[str] = []
    for line in all_lines[:lines]:
        if len(line) > chars:
            line = line[:chars] + f"… ({len(line) - chars} more characters)"
        shown.append(printable(line, keep="\t"))
    if len(all_lines) > lines:
        shown.append(f"… ({len(all_lines) - lines} more lines)")
    return shown


def _text_of(message: Any) -> str:
    if isinstance(message, str):
        return message
    if isinstance(message, Sequence):
        parts = []
        for part in message:
            if isinstance(part, Mapping) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, Mapping):
                parts.append(f"[{part.get('type', 'part')}]")
        return "\n".join(parts)
    return "" if message is None else json.dumps(message, ensure_ascii=False)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _indented(pad: str, texts: list[str]) -> list[str]:
    return [pad + text for text in texts]


def _step(step: Mapping[str, Any], pad: str) -> list[str]:
    head = f"{pad}step {step.get('step_id', '?')} · {printable(step.get('source', '?'))}"
    if step.get("model_name"):
        head += f" · {printable(step['model_name'])}"
    metrics = step.get("metrics") or {}
    if metrics:
        head += (
            f" · {metrics.get('prompt_tokens', 0)} prompt + "
            f"{metrics.get('completion_tokens', 0)} completion tokens"
        )
    if step.get("llm_call_count") not in (None, 1):
        head += f" · {step['llm_call_count']} model calls"
    if step.get("is_copied_context"):
        head += " · copied context"
    out = [head]
    message = _text_of(step.get("message"))
    if message:
        out += _indented(pad + "    ", fold(message))
    if step.get("reasoning_content"):
        out.append(pad + "    reasoning:")
        out += _indented(pad + "      ", fold(str(step["reasoning_content"])))
    out += _calls(step, pad + "    ")
    extra = step.get("extra") or {}
    if extra:
        out.append(f"{pad}    extra: {printable(_json(extra))[:FOLD_CHARS]}")
    return out


def _calls(step: Mapping[str, Any], pad: str) -> list[str]:
    results = list((step.get("observation") or {}).get("results") or ())
    out: list[str] = []
    for call in step.get("tool_calls") or ():
        name = printable(call.get("function_name", "?"))
        arguments = printable(_json(call.get("arguments")))
        out.append(
            f"{pad}→ {name}({arguments[:FOLD_CHARS]}{'…' if len(arguments) > FOLD_CHARS else ''})"
        )
        joined = [r for r in results if r.get("source_call_id") == call.get("tool_call_id")]
        results = [r for r in results if r not in joined]
        out += [line for result in joined for line in _result(result, pad + "    ")]
        if not joined:
            out.append(f"{pad}    ← (no result)")
    for result in results:  # results joined to no call of the step (a malformed reply …)
        out += _result(result, pad + "  ")
    return out


def _result(result: Mapping[str, Any], pad: str) -> list[str]:
    error = (result.get("extra") or {}).get("error")
    label = f"← error {printable(error)}: " if error else "← "
    lines = fold(_text_of(result.get("content")), lines=6)
    if result.get("subagent_trajectory_ref"):
        lines.append(f"(subagent: {printable(_json(result['subagent_trajectory_ref']))})")
    first, *rest = lines or [""]
    return [pad + label + first, *_indented(pad + "  ", rest)]


def _steps(trajectory: Mapping[str, Any], pad: str = "  ") -> list[str]:
    out: list[str] = []
    for step in trajectory.get("steps") or ():
        out += _step(step, pad)
    for index, child in enumerate(trajectory.get("subagent_trajectories") or (), start=1):
        name = printable(child.get("trajectory_id") or f"subagent {index}")
        out.append(f"{pad}subagent {name}:")
        out += _steps(child, pad + "    ")
    return out


def _criteria(row: Mapping[str, Any]) -> list[str]:
    out = ["criteria:"]
    if is_crash_row(str(row.get("status")), row.get("crashed")):
        out.append(f"  ✗ {CRASH_CRITERION} — the run ended as {printable(row.get('status'))}")
    outcomes = criterion_outcomes(row)
    if outcomes is not None:
        for outcome in outcomes:
            if outcome.held:
                out.append(f"  ✓ {printable(outcome.criterion)}")
                continue
            why = ("criterion error: " if outcome.error else "") + outcome.reason
            out.append(f"  ✗ {printable(outcome.criterion)} — {printable(why)}")
        return out if outcomes or len(out) > 1 else [*out, "  (the scenario has none)"]
    if row.get("passed") is None and row.get("status") == "harness_error":
        return [*out, "  not judged (a harness error)"]
    if not row.get("trajectory") and is_crash_row(str(row.get("status")), row.get("crashed")):
        return [*out, f"  not judged against its criteria: {_ended_before_any_step(row)}"]
    failed = [str(f) for f in row.get("failed_criteria") or () if not str(f).startswith("no crash")]
    out += [f"  ✗ {printable(entry)}" for entry in failed]
    out.append(
        "  (the criteria that held are unknown: this run set was written before trajguard "
        "stored every criterion's outcome, store schema 1)"
        if failed
        else "  (no criterion failed; which criteria held is unknown: store schema 1)"
    )
    return out


def _faults(row: Mapping[str, Any]) -> list[str]:
    injected = row.get("faults_injected")
    if injected is None:
        return ["faults injected: none (the run's arm has no faults)"]
    kinds = row.get("fault_kinds") or ()
    pairs = kinds.items() if isinstance(kinds, Mapping) else kinds
    listed = ", ".join(f"{printable(k)} ×{n}" for k, n in pairs)
    out = [f"faults injected: {injected}" + (f" ({listed})" if listed else "")]
    for name in ("retried_after_fault", "recovered_or_escalated", "no_fabricated_result"):
        if row.get(name) is not None:
            out.append(f"  {name}: {'yes' if row[name] else 'no'}")
    return out


def _header(row: Mapping[str, Any]) -> list[str]:
    passed = row.get("passed")
    crash = is_crash_row(str(row.get("status")), row.get("crashed"))
    verdict = (
        "not judged"
        if passed is None and not crash
        else ("passed" if passed and not crash else "failed")
    )
    tokens = row.get("total_tokens")
    duration = row.get("duration_s")
    return [
        f"run {printable(row.get('run_id'))} · scenario {printable(row.get('scenario'))} · "
        f"variant {printable(row.get('variant'))} · index {row.get('run_index')}",
        f"status {printable(row.get('status'))} · {verdict} · {row.get('step_count')} steps · "
        f"{'—' if tokens is None else tokens} tokens ({row.get('prompt_tokens')} prompt + "
        f"{row.get('completion_tokens')} completion) · "
        f"{'—' if duration is None else f'{duration:.1f}'} s",
        f"model {printable(row.get('model'))} · seed {row.get('seed')} · started "
        f"{printable(row.get('started_at'))}",
    ]


def _ended_before_any_step(row: Mapping[str, Any]) -> str:
    error = row.get("error_type")
    how = f" ({printable(error)})" if error is not None else ""
    return f"the run ended as {printable(row.get('status'))}{how} before any step was recorded"


def _why_no_steps(row: Mapping[str, Any]) -> str:
    """What the row says about a run without a trajectory (never a guess)."""
    if row.get("status") == "harness_error":
        error = row.get("error_type")
        return "a harness error" + (f" ({printable(error)})" if error is not None else "")
    if is_crash_row(str(row.get("status")), row.get("crashed")):
        return _ended_before_any_step(row)
    return f"the run ended as {printable(row.get('status'))} with no trajectory in its row"


def render_run(row: Mapping[str, Any]) -> str:
    """The text ``trajguard show RUNSET --run RUN`` prints for one run row."""
    out = _header(row)
    trajectory = row.get("trajectory")
    out.append("")
    if not trajectory:
        out.append(f"steps: none stored: {_why_no_steps(row)}")
    else:
        try:
            steps = _steps(stored_trajectory(trajectory, run_id=row.get("run_id")))
        except StoreError as exc:
            out.append(f"steps: cannot be shown: {exc.message}")
        else:
            out += ["steps:", *steps]
    out.append("")
    final = row.get("final_output")
    if final is None or final == "":
        out.append("final output: none" if final is None else "final output: (empty)")
    else:
        out.append("final output:")
        out += _indented("  ", fold(str(final)))
    out += ["", *_criteria(row), "", *_faults(row)]
    if row.get("error_type") is not None or row.get("error_message") is not None:
        out += ["", f"error: {printable(row.get('error_type'))}"]
        out += _indented("  ", printable(row.get("error_message") or "", keep="\n").split("\n"))
    return "\n".join(out)
