"""The A/B report's pairwise-judge section: which variant's answers the judge preferred, the
test, the judge's position bias and what it could not judge (a renderer: reads the result)."""

from __future__ import annotations

from trajguard.comparison import PairwiseResult
from trajguard.report._format import md

__all__ = ["pairwise_section"]


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.2f}"


def _interval(ci: tuple[float, float] | None, level: str) -> str:
    return "" if ci is None else f" ({level} CI {ci[0]:+.2f} to {ci[1]:+.2f})"


def pairwise_section(result: PairwiseResult, a: str, b: str, alpha: float) -> list[str]:
    """The section's lines: the judge's answer first, then the figures behind it."""
    level = f"{100 * (1 - alpha):.4g}%"
    answer = result.answer(alpha)
    lines = [
        "## Pairwise judge",
        "",
        f"**By the pairwise judge, {md(b)} {answer.value}** compared with {md(a)}. The judge "
        f"({md(result.model, limit=60)}; rubric: {md(result.rubric, limit=200)}) compared "
        f"{result.pairs} pairs (run *i* of each variant on one input) over {result.scenarios} "
        f"scenario{'s' if result.scenarios != 1 else ''}, the answers' order drawn per pair: "
        f"{md(b)}'s answer preferred in {result.b_preferred}, {md(a)}'s in "
        f"{result.a_preferred}, neither in {result.ties}.",
        "",
        "| pairs | score (B − A, −1 to +1) | interval | test | p | adj. p |",
        "|---:|---:|---|---|---:|---:|",
        f"| {result.pairs} | {_signed(result.estimate)} | "
        f"{_interval(result.ci, level).strip(' ()') or '—'} | {md(result.test, limit=70)} | "
        f"{result.p_value:.3f} | {result.p_adjusted:.3f} |",
        "",
    ]
    if result.both_orders:
        lines.append(
            f"Position bias: on the {result.both_orders} pairs asked in both orders, the "
            f"answer shown first was preferred by {_signed(result.position_bias)}"
            f"{_interval(result.position_bias_ci, level)} (0: no bias; +1: always the first); "
            f"the judge contradicted itself when the order flipped on {result.contradictions} "
            "of them, which count as ties. The order is drawn per pair, so a position bias "
            "widens the answer's uncertainty but cannot make a difference appear."
        )
    else:
        lines.append(
            "Position bias: not measured (no pair was asked in both orders; set the suite's "
            "`pairwise: {both_orders: …}` above 0)."
        )
    missing = []
    if result.judge_failures:
        why = "; ".join(md(f, limit=200) for f in result.failures)
        missing.append(
            f"{result.judge_failures} pair{'s' if result.judge_failures != 1 else ''} the judge "
            f"failed on (counted apart: neither a tie nor the agent's; {why})"
        )
    if result.not_paired:
        missing.append(
            f"{result.not_paired} pair{'s' if result.not_paired != 1 else ''} with a crashed "
            "run or without a partner (the crash-rate test speaks for them)"
        )
    if missing:
        lines += ["", "Not judged: " + "; ".join(missing) + "."]
    return lines
