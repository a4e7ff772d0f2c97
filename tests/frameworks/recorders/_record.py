"""The framework's own record of a run, in one form for every framework, written where the
test reads it (``ctx.params["record_dir"]/<seed>.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def tool_call(name: str, arguments: Any, result: Any, *, from_text: bool = False) -> dict[str, Any]:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            arguments = {"_raw": arguments}
    return {
        "name": name,
        "arguments": arguments,
        "result": None if result is None else str(result),
        "from_text": from_text,
    }


def write(
    ctx: Any,
    *,
    model_calls: int,
    tool_calls: list[dict[str, Any]],
    prompt_tokens: int,
    completion_tokens: int,
    final_output: str | None,
    errors: list[str] = (),  # type: ignore[assignment]
    stopped: str | None = None,
    raised: str | None = None,
) -> None:
    record = {
        "model_calls": model_calls,
        "tool_calls": tool_calls,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "final_output": final_output,
        "errors": list(errors),
        "stopped": stopped,
        "raised": raised,
    }
    folder = Path(ctx.params["record_dir"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{ctx.seed}.json").write_text(json.dumps(record, indent=1, default=str))
