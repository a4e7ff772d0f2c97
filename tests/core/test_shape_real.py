"""The shape's counting rules on real ATIF exports (tests/core/data/real_atif, see its README)."""

from __future__ import annotations

import json
from pathlib import Path

from trajguard.atif import validate
from trajguard.core.shape import shape

DATA = Path(__file__).parent / "data" / "real_atif"


def _load(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_a_split_claude_code_response_counts_one_call_and_its_usage_once() -> None:
    data = _load("claude-code-split.json")
    assert validate(DATA / "claude-code-split.json").valid
    # 9 agent steps, which counting a call per step would report ...
    assert sum(1 for step in data["steps"] if step["source"] == "agent") == 9
    s = shape(data)
    # ... but 3 model responses, counted by hand: steps 2-4, 5-7 and 8-10 share one metrics
    # object each, and their tool-call ids share the response's stem (see the README)
    assert s.llm_calls == 3
    assert [n for _, n in s.steps] == [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]
    assert s.prompt_tokens == 12459 + 12482 + 18076
    assert s.completion_tokens == 0
    assert s.cached_tokens == 12354 + 12354 + 17263
    assert s.tool_calls == ("Glob", "Read", "Read", "TodoWrite")
