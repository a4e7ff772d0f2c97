"""`shorten`: summaries cut at a word boundary and say that something was left out."""

from __future__ import annotations

from trajguard._text import shorten
from trajguard.outcome import common_errors


def test_a_short_one_line_message_is_whole() -> None:
    assert shorten("connection refused", 160) == ("connection refused", False)


def test_a_long_line_is_cut_at_a_word_boundary() -> None:
    text = "the model stopped early because the parser failed"
    shown, cut = shorten(text, 30)
    assert cut and shown == "the model stopped early…"
    assert len(shown) <= 30


def test_a_word_longer_than_half_the_width_is_cut_hard() -> None:
    shown, cut = shorten("x" * 100, 20)
    assert cut and shown == "x" * 19 + "…"


def test_later_lines_count_as_left_out() -> None:
    assert shorten("first line\nTraceback ...", 160) == ("first line …", True)


def test_common_errors_name_their_first_run_and_summarise() -> None:
    long = "word " * 60
    errors = common_errors([("E", long), ("E", long), ("F", "short")], run_ids=["r1", "r2", "r3"])
    assert [(e.error_type, e.runs, e.example_run) for e in errors] == [
        ("E", 2, "r1"),
        ("F", 1, "r3"),
    ]
    summary = errors[0].summary("RS")
    assert summary.endswith("… (whole message: trajguard show RS --run r1)")
    assert errors[1].summary("RS") == "F: short"
