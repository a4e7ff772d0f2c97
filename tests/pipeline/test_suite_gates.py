"""The suite's ``defaults.gate`` (issue 38): added to the gating family, never removing a gate;
``gate: [cost]`` gives exactly the family whose false-alarm rate and power bench_cost_gate.py
measured (the default gates and cost)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.comparison import DEFAULT_GATING, CompareConfig
from trajguard.errors import SuiteError
from trajguard.pipeline._compare import with_suite_gates
from trajguard.suite import load_suite

SUITE = """name: paid
defaults: {{gate: {gate}}}
scenarios:
  - id: s
    agent: {{kind: builtin}}
    input: hi
"""


def _gate(tmp_path: Path, gate: str) -> tuple[str, ...]:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(gate=gate))
    return load_suite(path).defaults.gate


def test_gate_cost_gives_the_benchmarked_family(tmp_path: Path) -> None:
    gate = _gate(tmp_path, "[cost]")
    assert with_suite_gates(CompareConfig(), gate).gating == DEFAULT_GATING | {"cost"}


def test_the_suites_gates_add_to_the_command_lines_and_remove_none() -> None:
    chosen = CompareConfig(gating=frozenset({"pass_rate"}))  # --gate pass_rate
    assert with_suite_gates(chosen, ("cost",)).gating == {"pass_rate", "cost"}
    assert with_suite_gates(chosen, ()).gating == {"pass_rate"}
    assert with_suite_gates(chosen, None).gating == {"pass_rate"}  # a manifest without "gate"
    assert with_suite_gates(chosen, ["pass_rate"]) is chosen


def test_earlier_names_are_read_as_todays_and_repeats_kept_once(tmp_path: Path) -> None:
    assert _gate(tmp_path, "[tool_multiset, cost, cost]") == ("tool_usage", "cost")
    assert _gate(tmp_path, "[]") == ()


def test_an_unknown_metric_names_the_closest(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"defaults\.gate: unknown metric 'latncy'") as info:
        _gate(tmp_path, "[latncy, cost]")
    assert "(the closest is 'latency')" in str(info.value)
