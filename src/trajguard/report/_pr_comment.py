"""A comparison → the one pull-request comment that answers "did this change help?".

Rendered from the report document alone (so ``trajguard report comparison.json --format
pr-comment`` makes it anywhere: GitHub, GitLab, a chat bot). It starts with a hidden marker by
which the comment is found again and updated, never posted twice, and it fits GitHub's limit on a
comment's length: rows are dropped whole, with a note and a link to the full page.
"""

from __future__ import annotations

import math
import re

from trajguard._metric_table import metric_description
from trajguard._text import counted
from trajguard.errors import UsageError
from trajguard.report._ab import detectable_sentence
from trajguard.report._format import MARK, md
from trajguard.report._markdown import _blind
from trajguard.report._pr_parts import (
    NOT_COMPARABLE,
    check_page_url,
    cost_metrics,
    failing_runs,
    infrastructure_note,
    not_comparable,
    scenario_rows,
)
from trajguard.results import ReportDocument, ReportKind

__all__ = [
    "COMMENT_LIMIT",
    "DEFAULT_KEY",
    "comment_marker",
    "comment_size",
    "render_not_compared",
    "render_pr_comment",
]

COMMENT_LIMIT = 65_536
"""GitHub's limit on a comment's body, in characters (counted here as UTF-16 code units, the
stricter count: an emoji is two)."""

DEFAULT_KEY = "trajguard"
_KEY = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_EXITS = {
    0: "no gating regression",
    1: "a gating regression failed the night",
    4: "blind where `--require-power` asked for power",
    5: "the trend raised a harmful alarm (`--fail-on-change`)",
}


def comment_marker(key: str = DEFAULT_KEY) -> str:
    """The hidden first line by which the comment of ``key`` is found again.

    Raises:
        UsageError: ``key`` is not 1 to 64 letters, digits, ``_``, ``.`` or ``-``.
    """
    if not _KEY.fullmatch(key):
        raise UsageError(
            f"comment key {key!r} is not 1-64 letters, digits, '_', '.' or '-'",
            hint="name the comment after its suite or job, e.g. --key demo-nightly",
        )
    return f"<!-- trajguard:pr-comment {key} -->"


def comment_size(text: str) -> int:
    """The comment's length as GitHub's limit counts it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _title(document: ReportDocument) -> str:
    suite = md(document.suite, limit=60)
    if document.ab is not None:
        a, b = md(document.ab.variant_a), md(document.ab.variant_b)
        return f"### trajguard A/B · {suite}: {b} against {a}"
    return f"### trajguard {document.kind.value} · {suite}"


def _answer(document: ReportDocument, broken: list[str]) -> list[str]:
    comparison = document.comparison
    if not comparison.scenarios or len(broken) == len(comparison.scenarios):
        return [
            f"**{NOT_COMPARABLE}** — infrastructure failed: no scenario has runs of both sides "
            "that say anything about the agent, so this comparison gives no answer. Run it again "
            "once the model endpoint (or the workers) answer."
        ]
    lines = []
    if document.ab is not None:
        ab = document.ab
        lines.append(
            f"**Answer: {md(ab.variant_b)} {ab.answer.value}** (against {md(ab.variant_a)}). "
            f"{md(ab.summary, limit=1200)}"
        )
    else:
        code = document.exit_code
        lines.append(
            f"**Verdict: {MARK[comparison.verdict]}** — {_EXITS.get(code, 'see the report')} "
            f"(exit code {code})."
        )
    if broken:
        names = ", ".join(md(n, limit=60) for n in broken[:10])
        more = f" and {len(broken) - 10} more" if len(broken) > 10 else ""
        lines.append(
            f"- **{NOT_COMPARABLE}:** {names}{more} — every run of a side was an infrastructure "
            "failure, so these scenarios say nothing either way."
        )
    return lines


def _detectable(document: ReportDocument) -> list[str]:
    ab = document.kind is ReportKind.AB
    lines = ["", "**What these runs could have detected.**"]
    if document.ab is not None:
        lines.append(detectable_sentence(document.ab))
    blind = _blind(document.comparison, document.require_power, ab)
    if blind:
        lines += blind
    elif document.ab is None:
        lines.append(
            "No scenario was blind to a pass-rate drop of its band; the table's last column says "
            "how small a drop each could see."
        )
    return lines


def _overall_cost(document: ReportDocument) -> list[str]:
    if document.ab is None:
        return []
    lines = []
    for o in document.ab.overall:
        if "cost" not in o.metric:
            continue
        try:
            m = metric_description(o.metric)
            shown = f"{m.label}: {m.format_difference(o.estimate)} {m.format_interval(o.ci)}"
        except KeyError:
            shown = f"{md(o.metric)}: {o.estimate}"
        lines.append(
            f"- Cost over all scenarios, B against A — {shown}, adj. p {o.p_adjusted:.3f}."
        )
    return lines


def _table(document: ReportDocument, costs: list[str], rows: list[str]) -> list[str]:
    alpha = document.comparison.config.alpha
    level = f"{100 * (1 - alpha):.4g}%"
    heads = ["scenario", "verdict", f"pass rate ({level} CI)", f"crash rate ({level} CI)"]
    heads += ["detectable drop", *(f"{md(c)} ({level} CI)" for c in costs)]
    return [
        "",
        "| " + " | ".join(heads) + " |",
        "|" + "---|" * len(heads),
        *rows,
    ]


def render_pr_comment(
    document: ReportDocument,
    *,
    page_url: str | None = None,
    key: str = DEFAULT_KEY,
    limit: int = COMMENT_LIMIT,
) -> str:
    """The pull-request comment of ``document``: its marker, the answer (or the verdict), the
    per-scenario table with intervals, what the runs could have detected, cost when the
    comparison has it, the failing runs (linked into the page at ``page_url``) and "not
    comparable" where infrastructure failed. Every name from a suite or run set is escaped.

    Raises:
        UsageError: ``page_url`` cannot stand in a link, or ``key`` is not a comment key.
        ValueError: ``limit`` is too small even for the comment without any row.
    """
    page = check_page_url(page_url)
    broken = not_comparable(document)
    costs = cost_metrics(document)
    head = [comment_marker(key), _title(document), "", *_answer(document, broken)]
    head += infrastructure_note(document) + _overall_cost(document) + _detectable(document)
    rows, runs = scenario_rows(document, costs), failing_runs(document, page)
    full = f"[the full report]({page})" if page else "the full report (report.md, report.html)"
    foot = ["", f"<sub>Rendered by trajguard from comparison.json; {full} has every section.</sub>"]

    def text(kept_rows: int, kept_runs: int) -> str:
        lines = head + _table(document, costs, rows[:kept_rows])
        if runs[:kept_runs]:
            lines += ["", "**Failing runs** (of the candidate, with the baseline's contrast):"]
            lines += runs[:kept_runs]
        dropped = (len(rows) - kept_rows, len(runs) - kept_runs)
        if any(dropped):
            lines += [
                "",
                f"_Left out to fit GitHub's comment limit: {counted(dropped[0], 'scenario row')} "
                f"and {counted(dropped[1], 'failing-run line')}; {full} has them all._",
            ]
        return "\n".join(lines + foot) + "\n"

    kept = [len(rows), len(runs)]
    body = text(*kept)
    while comment_size(body) > limit:
        if kept == [0, 0]:
            raise ValueError(f"a comment of at most {limit} characters cannot hold the answer")
        which = 0 if kept[0] >= kept[1] else 1
        shown = (rows, runs)[which][: kept[which]]
        average = sum(comment_size(line) + 1 for line in shown) / len(shown)
        step = math.ceil((comment_size(body) - limit) / average)
        kept[which] = max(0, kept[which] - max(1, step))
        body = text(*kept)
    return body


def render_not_compared(
    *, exit_code: int, reason: str, page_url: str | None = None, key: str = DEFAULT_KEY
) -> str:
    """The comment when trajguard stopped before it compared anything (no comparison.json):
    not comparable when infrastructure failed (exit 3), an input error (exit 2) otherwise."""
    page = check_page_url(page_url)
    what = (
        f"**{NOT_COMPARABLE}** — infrastructure failed before any comparison "
        "(the model endpoint, a worker or the disk), so this run gives no answer either way."
        if exit_code == 3
        else f"**No comparison** — trajguard stopped on an error (exit code {exit_code})."
    )
    lines = [comment_marker(key), "### trajguard", "", what, "", f"> {md(reason, limit=1500)}"]
    if page:
        lines += ["", f"[The job's reports]({page})"]
    lines += ["", f"<sub>trajguard exit code {exit_code}; the job log has the details.</sub>"]
    return "\n".join(lines) + "\n"
