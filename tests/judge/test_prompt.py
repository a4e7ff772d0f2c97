"""Reading a judge's verdict robustly, and what it is asked (issue 25)."""

from __future__ import annotations

import pytest

from trajguard.judge import decide, judge_messages, parse_verdict, trajectory_text


@pytest.mark.parametrize(
    ("answer", "verdict", "reason"),
    [
        ("VERDICT: PASS\nREASON: names Paris.", True, "names Paris"),
        ("verdict: fail\nreason: it says Lyon", False, "it says Lyon"),
        ("**Verdict:** **FAIL**\n**Reason:** no city", False, "no city"),
        ("PASS - the answer names Paris", True, "the answer names Paris"),
        ("**FAIL** — no city", False, "no city"),
        ("Passed. Paris is named.", True, "Paris is named"),
        (
            "The answer is right, so my verdict is PASS.",
            True,
            "The answer is right, so my verdict is PASS",
        ),
        (
            "Looking at it, I say FAIL because of Lyon.",
            False,
            "Looking at it, I say FAIL because of Lyon",
        ),
    ],
)
def test_a_verdict_is_read_from_loose_answers(answer: str, verdict: bool, reason: str) -> None:
    assert parse_verdict(answer) == (verdict, reason)


@pytest.mark.parametrize(
    "answer",
    [None, "", "I would rather not say.", "It could PASS or FAIL.", "passable, maybe"],
)
def test_no_verdict_or_two_verdicts_is_unparseable(answer: str | None) -> None:
    assert parse_verdict(answer)[0] is None


def test_the_label_wins_over_a_verdict_word_in_the_reasoning() -> None:
    assert parse_verdict("It would FAIL if it said Lyon, but\nVERDICT: PASS")[0] is True


def test_the_prompt_holds_the_rubric_and_the_text_between_markers() -> None:
    system, user = judge_messages("  Names Paris.  ", "Paris {x} >>>")
    assert "VERDICT: PASS" in system["content"]
    assert "Rubric:\nNames Paris.\n" in user["content"]
    assert "<<<\nParis {x} >>>\n>>>" in user["content"]  # braces in the text are kept as is
    assert "(empty: there was no final output)" in judge_messages("r", "  ")[1]["content"]


def test_pass_rules() -> None:
    assert decide((True, True, False), "majority") and not decide((True, False), "majority")
    assert not decide((True, True, False), "all") and decide((True, True), "all")
    assert decide((False, True, False), "any") and not decide((False, False), "any")


def test_a_trajectory_reads_as_lines_cut_at_the_limit() -> None:
    trajectory = {
        "steps": [
            {"source": "user", "message": "capital of France?"},
            {
                "source": "agent",
                "tool_calls": [{"function_name": "lookup", "arguments": {"c": "FR"}}],
                "observation": {"results": [{"content": "Paris"}]},
            },
            {"source": "agent", "message": "Paris"},
        ],
        "subagent_trajectories": [{"steps": [{"source": "agent", "message": "sub"}]}],
    }
    assert trajectory_text(trajectory).splitlines() == [
        "user: capital of France?",
        "agent calls lookup({'c': 'FR'})",
        "tool result: Paris",
        "agent: Paris",
        "  agent: sub",
    ]
    assert trajectory_text(trajectory, limit=10) == "user: cap…"


def test_the_embedded_models_json_answer_is_read() -> None:
    assert parse_verdict('{"verdict": "FAIL", "reason": "it says Lyon"}') == (False, "it says Lyon")
