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


def test_terminus_2_counts_a_call_per_step_even_where_two_report_equal_usage() -> None:
    data = _load("terminus-2-summarization.json")
    assert validate(DATA / "terminus-2-summarization.json").valid
    s = shape(data)
    # 7 agent steps, 7 calls; tokens = the file's final_metrics (run + summarisation subagents)
    # minus the subagents' own final_metrics: 7802 - (500 + 100 + 700), 1030 - (200 + 20 + 120)
    assert s.llm_calls == 7
    assert (s.prompt_tokens, s.completion_tokens) == (7802 - 1300, 1030 - 340)
    # steps 8 and 9: equal usage, two calls (a split response would make them one)
    assert data["steps"][7]["metrics"] == data["steps"][8]["metrics"]
    assert [n for _, n in s.steps] == [0, 1, 1, 1, 0, 0, 1, 1, 1, 1]
    assert s.tool_counts == {"bash_command": 5, "mark_task_complete": 2}


def test_a_summarisation_subagent_counts_only_its_own_call_and_no_copied_tool() -> None:
    data = _load("terminus-2-summary-subagent.json")
    assert validate(DATA / "terminus-2-summary-subagent.json").valid
    s = shape(data)
    # one call of its own: its final_metrics; steps 1-3 are copied from the parent run
    assert s.llm_calls == 1
    final = data["final_metrics"]
    assert (
        (s.prompt_tokens, s.completion_tokens)
        == (
            final["total_prompt_tokens"],
            final["total_completion_tokens"],
        )
        == (500, 200)
    )
    # the two copied bash_command calls ran in the parent run
    assert sum(len(st.get("tool_calls") or ()) for st in data["steps"]) == 2
    assert s.tool_calls == ()


def test_a_continuation_counts_the_calls_after_its_copied_context() -> None:
    data = _load("terminus-2-continuation.json")
    assert validate(DATA / "terminus-2-continuation.json").valid
    s = shape(data)
    # its final_metrics are the whole run's (7802/1030): steps 5-8 added by hand instead, the
    # same figures as steps 7-10 of terminus-2-summarization.json
    assert data["final_metrics"]["total_prompt_tokens"] == 7802
    assert s.llm_calls == 4
    assert (s.prompt_tokens, s.completion_tokens) == (1700 + 850 * 3, 420 + 40 + 40 + 30)
    after = [st["metrics"] for st in _load("terminus-2-summarization.json")["steps"][6:]]
    assert s.prompt_tokens == sum(m["prompt_tokens"] for m in after)


def test_terminus_2_with_an_invalid_reply_counts_it_as_a_call() -> None:
    data = _load("terminus-2-invalid-json.json")
    assert validate(DATA / "terminus-2-invalid-json.json").valid
    s = shape(data)
    final = data["final_metrics"]
    assert s.llm_calls == 4
    assert (
        (s.prompt_tokens, s.completion_tokens)
        == (
            final["total_prompt_tokens"],
            final["total_completion_tokens"],
        )
        == (2417, 200)
    )


def test_openhands_without_a_model_name_still_made_its_calls() -> None:
    data = _load("openhands-hello-world.json")
    assert validate(DATA / "openhands-hello-world.json").valid
    assert "model_name" not in data["agent"]
    assert not any(st.get("model_name") for st in data["steps"])
    s = shape(data)
    # two agent steps with metrics: a model ran (this is no oracle); final_metrics 220/80
    assert s.llm_calls == 2
    assert (s.prompt_tokens, s.completion_tokens) == (220, 80)
    assert s.tool_calls == ("str_replace_editor", "finish")
