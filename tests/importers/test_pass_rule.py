"""The ``--pass-if`` grammar: how a scorer's value becomes a pass."""

from __future__ import annotations

import pytest

from trajguard.errors import UsageError
from trajguard.importers import parse_pass_rule


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        (">=0.5", 0.5, True),
        (">=0.5", "0.49", False),
        (">0", True, True),
        (">0", "false", False),
        ("<1", 0.25, True),
        ("<=1", 2, False),
        ("==C", "C", True),
        ("==C", "I", False),
        ("!=I", "C", True),
        ("==1", 1.0, True),
        ("==1", "1.0", True),
        ("in C,P", "P", True),
        ("in C,P", "I", False),
        (">=0.5", "C", None),  # a number rule cannot compare a letter grade
        (">=0.5", None, None),
        (">=0.5", float("nan"), None),
    ],
)
def test_a_rule_decides_or_says_it_cannot(rule: str, value: object, expected: bool | None) -> None:
    assert parse_pass_rule(rule).holds(value) is expected


@pytest.mark.parametrize("text", ["", "0.5", ">=", ">=high", "in ", "~C"])
def test_a_malformed_rule_is_a_usage_error_with_the_grammar(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_pass_rule(text)
    assert caught.value.exit_code == 2
    assert caught.value.hint is not None
    assert ">=" in caught.value.hint
