"""The report's conversations section: per conversational scenario, pass^1 … pass^k on each
side, each scripted turn's criteria as pass rates, and where the conversations ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trajguard.comparison import PassK, ScenarioResult
from trajguard.report._format import interval_label, md, p_cell
from trajguard.results import ConversationFacts, RateCount

__all__ = ["conversations_section"]


def _rate(rate: RateCount | None) -> str:
    if rate is None:
        return "—"
    return (
        f"{100 * rate.hits / rate.n:.0f}% ({rate.hits}/{rate.n}; "
        f"{100 * rate.low:.0f}–{100 * rate.high:.0f}%)"
    )


def _pass_k(value: PassK | None) -> str:
    if value is None:
        return "—"
    return f"{100 * value.estimate:.0f}% [{100 * value.low:.0f}, {100 * value.high:.0f}]"


def _pass_k_table(result: ScenarioResult) -> list[str]:
    base = {p.k: p for p in result.pass_k_baseline}
    cand = {p.k: p for p in result.pass_k_candidate}
    ks = sorted(set(base) | set(cand))
    if not ks:
        return []
    return [
        "",
        "| pass^k | " + " | ".join(f"k={k}" for k in ks) + " |",
        "|---|" + "---:|" * len(ks),
        "| baseline | " + " | ".join(_pass_k(base.get(k)) for k in ks) + " |",
        "| candidate | " + " | ".join(_pass_k(cand.get(k)) for k in ks) + " |",
    ]


def _turns(facts: ConversationFacts) -> list[str]:
    if not facts.turns:
        return []
    return [
        "",
        "| turn | criterion | baseline passed | candidate passed | p |",
        "|---:|---|---|---|---:|",
        *(
            f"| {t.turn} | {md(t.criterion)} | {_rate(t.baseline)} | {_rate(t.candidate)} | "
            f"{p_cell(t.p_value)} |"
            for t in facts.turns
        ),
    ]


def _endings(facts: ConversationFacts) -> list[str]:
    if not facts.endings:
        return []
    total_b = sum(e.baseline for e in facts.endings)
    total_c = sum(e.candidate for e in facts.endings)

    def share(count: int, total: int) -> str:
        return f"{count} ({100 * count / total:.0f}%)" if total else "—"

    return [
        "",
        f"Where the conversations ended (stop reason): TVD {facts.endings_tvd:.2f} between the "
        f"sides' mixes, permutation p {p_cell(facts.endings_p_value)}.",
        "",
        "| stop reason | baseline | candidate |",
        "|---|---:|---:|",
        *(
            f"| {md(e.reason)} | {share(e.baseline, total_b)} | {share(e.candidate, total_c)} |"
            for e in facts.endings
        ),
    ]


def conversations_section(
    conversations: Sequence[ConversationFacts],
    results: Mapping[str, ScenarioResult],
    alpha: float,
) -> list[str]:
    """The section's markdown lines (none when no run held a conversation)."""
    if not conversations:
        return []
    lines = [
        "",
        "## Conversations",
        "",
        "pass^k is the chance that k conversations in a row all pass: the unbiased "
        "C(passes, k) / C(runs, k), in brackets the Wilson interval of the pass rate raised to "
        f"the power k ({interval_label(alpha)}; statistics §17). A turn's criteria are judged on "
        "the conversation up to that turn's answer, each with its Wilson interval and a "
        "two-sided Fisher test.",
    ]
    for facts in conversations:
        lines += ["", f"### {md(facts.scenario)}"]
        result = results.get(facts.scenario)
        if result is not None:
            lines += _pass_k_table(result)
        lines += _turns(facts)
        lines += _endings(facts)
    return lines
