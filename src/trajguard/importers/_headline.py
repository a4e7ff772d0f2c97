"""The source tool's own headline figure beside trajguard's pass rate, and why they differ.

Each tool summarises a run in its own way: Inspect's ``accuracy()`` leaves errored samples out,
scores a sample that hit a limit by what it answered, and gives partial credit; Harbor averages
the trials' rewards, a timed-out trial's included; promptfoo counts an errored test among the
ones that did not pass. trajguard's pass rate is the
share of judged runs that passed by its documented rule (a crash is a failure, a harness error
is not judged). The import summary shows both figures; when they differ, it says what in the
runs makes them differ, counted, so that neither figure is mistaken for the other.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trajguard.importers._inspect_scores import credit
from trajguard.importers._model import ImportedBatch, ImportedRun
from trajguard.importers._pass_rule import as_number
from trajguard.outcome import HARNESS_ERROR, is_behavioural, is_crash_row, passed_row

__all__ = ["Headline", "headlines"]

_PARTIAL_TEXT = frozenset({"p"})
_LIMIT = "_limit"  # an Inspect sample that hit a limit: error_type "<kind>_limit"


@dataclass(frozen=True, kw_only=True)
class Headline:
    """One figure of the source tool, trajguard's beside it, and why they differ.

    Attributes:
        name: what the source's figure is ("Inspect's accuracy (includes)").
        value: its value, as the source's log states it.
        passes: trajguard's passed runs.
        judged: trajguard's judged runs.
        reasons: why the two differ, each counted ("3 errored samples ..."); empty when they
            agree.
    """

    name: str
    value: float
    passes: int
    judged: int
    reasons: tuple[str, ...] = ()

    @property
    def rate(self) -> float | None:
        """trajguard's pass rate (``None`` with no judged run)."""
        return self.passes / self.judged if self.judged else None

    @property
    def differ(self) -> bool:
        """The two figures differ (beyond the log's rounding)."""
        return _differ(self.value, self.passes, self.judged)

    def lines(self) -> list[str]:
        """The summary's lines: both figures, then why they differ (when they do)."""
        ours = (
            f"{self.rate:.3f} ({self.passes} of {self.judged} judged runs)"
            if self.rate is not None
            else "none (no judged run)"
        )
        out = [f"{self.name}: {self.value:.3f}; trajguard's pass rate: {ours}"]
        if self.differ:
            why = "; ".join(self.reasons) or (
                "no errored, partial or harness-error run explains it: the pass rules differ "
                "(see --pass-if)"
            )
            out.append(f"  they differ: {why}")
        return out


def _counts(runs: Iterable[ImportedRun]) -> tuple[int, int]:
    """Passed and judged runs, as the run set's rows count them (a crash is a failed run)."""
    passes = judged = 0
    for run in runs:
        crash = is_crash_row(run.status, run.crashed)
        if is_behavioural(run.status) and (run.passed is not None or crash):
            judged += 1
            passes += passed_row(run.status, run.crashed, run.passed)
    return passes, judged


def _crashed(run: ImportedRun) -> bool:
    return run.status != HARNESS_ERROR and is_crash_row(run.status, run.crashed)


def _limited(run: ImportedRun) -> bool:
    return (run.error_type or "").endswith(_LIMIT)


def _partial(run: ImportedRun) -> bool:
    for criterion in run.criteria:
        text = (criterion.value or "").strip().lower()
        number = as_number(criterion.value)
        if text in _PARTIAL_TEXT or (number is not None and 0 < number < 1):
            return True
    return False


def _rewarded(run: ImportedRun) -> bool:
    return any((as_number(c.value) or 0) > 0 for c in run.criteria)


def _differ(value: float, passes: int, judged: int) -> bool:
    return not judged or abs(value - passes / judged) > 5e-4


def _worth(run: ImportedRun, scorer: str) -> float | None:
    """The credit Inspect gives the run's value of ``scorer`` (``None``: no such value)."""
    values = [credit(c.value) for c in run.criteria if c.name == scorer]
    return values[0] if values else None


def _inspect_reasons(runs: Sequence[ImportedRun], scorer: str) -> list[str]:
    """What separates ``scorer``'s accuracy() from trajguard's pass rate, counted."""
    worth = {id(run): _worth(run, scorer) for run in runs}
    errored = [r for r in runs if _crashed(r) and not _limited(r)]
    limited = [r for r in runs if _crashed(r) and _limited(r) and (worth[id(r)] or 0) > 0]
    judged = [r for r in runs if not _crashed(r) and r.status != HARNESS_ERROR]
    partial = [r for r in judged if (w := worth[id(r)]) is not None and 0 < w < 1]
    vetoed = [r for r in judged if (worth[id(r)] or 0) >= 1 and r.passed is False]
    unscored = [r for r in judged if (worth[id(r)] or 0) < 1 and r.passed is True]
    harness = [r for r in runs if r.status == HARNESS_ERROR and worth[id(r)] is not None]
    reasons = []
    if errored:
        reasons.append(
            f"{len(errored)} errored sample(s): Inspect leaves them out of accuracy(), "
            "trajguard counts each as a failed run (a crash)"
        )
    if limited:
        kinds = Counter(r.error_type for r in limited)
        listed = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
        reasons.append(
            f"{len(limited)} run(s) that hit a limit ({listed}) with credit from {scorer}: "
            "Inspect scores what they answered, trajguard counts each as a failed run (a crash)"
        )
    if partial:
        reasons.append(
            f"{len(partial)} run(s) with partial credit: accuracy() counts the credit, "
            "trajguard's pass rule full credit only"
        )
    if vetoed:
        reasons.append(
            f"{len(vetoed)} run(s) {scorer} credits that another scorer fails: trajguard's "
            "pass rule needs every scorer (or the one --scorer names)"
        )
    if unscored:
        reasons.append(
            f"{len(unscored)} run(s) trajguard passes that {scorer} does not credit: another "
            "scorer decides (--scorer)"
        )
    if harness:
        reasons.append(
            f"{len(harness)} scored run(s) that are harness errors (the provider or the "
            "operator stopped them): not judged by trajguard"
        )
    return reasons


def _inspect(batch: ImportedBatch) -> list[Headline]:
    logs = [log for log in batch.provenance.get("logs") or [] if isinstance(log, Mapping)]
    passes, judged = _counts(batch.runs)
    found = []
    for log in logs if len(logs) == 1 else []:
        for scorer, metrics in (log.get("scores") or {}).items():
            value = metrics.get("accuracy") if isinstance(metrics, Mapping) else None
            if not isinstance(value, int | float):
                continue
            reasons = (
                _inspect_reasons(batch.runs, scorer)
                if _differ(float(value), passes, judged)
                else []
            )
            found.append(
                Headline(
                    name=f"Inspect's accuracy ({scorer})",
                    value=float(value),
                    passes=passes,
                    judged=judged,
                    reasons=tuple(reasons),
                )
            )
    return found


def _harbor(batch: ImportedBatch) -> list[Headline]:
    jobs = [job for job in batch.provenance.get("jobs") or [] if isinstance(job, Mapping)]
    means = [job.get("reward_mean") for job in jobs]
    if len(jobs) != 1 or not isinstance(means[0], int | float):
        return []
    passes, judged = _counts(batch.runs)
    reasons = []
    if _differ(float(means[0]), passes, judged):
        crashed = sum(_crashed(r) and _rewarded(r) for r in batch.runs)
        partial = sum(_partial(r) for r in batch.runs)
        if crashed:
            reasons.append(
                f"{crashed} trial(s) that timed out or crashed carry a reward: Harbor averages "
                "it, trajguard fails a crash (its status rule)"
            )
        if partial:
            reasons.append(
                f"{partial} trial(s) with a partial reward: Harbor averages it, trajguard's "
                "pass rule needs reward 1"
            )
    return [
        Headline(
            name="Harbor's mean reward",
            value=float(means[0]),
            passes=passes,
            judged=judged,
            reasons=tuple(reasons),
        )
    ]


def _promptfoo_figure(
    name: str, counts: tuple[int, int, int], runs: Sequence[ImportedRun]
) -> Headline | None:
    won, lost, errors = counts
    if won + lost + errors == 0:
        return None
    value = won / (won + lost + errors)
    passes, judged = _counts(runs)
    reasons = []
    if _differ(value, passes, judged) and errors:
        reasons.append(
            f"{errors} errored test(s): promptfoo counts them as not passed, trajguard does not "
            "judge them (harness errors)"
        )
    return Headline(name=name, value=value, passes=passes, judged=judged, reasons=tuple(reasons))


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _promptfoo(batch: ImportedBatch) -> list[Headline]:
    """The eval's successes over tests; with several prompt columns, each column's own counts
    (``testPassCount`` over its tests) beside the runs of its variant."""
    evals = [e for e in batch.provenance.get("evals") or [] if isinstance(e, Mapping)]
    if len(evals) != 1:
        return []
    stats: Any = evals[0].get("stats")
    columns = [c for c in evals[0].get("columns") or [] if isinstance(c, Mapping)]
    if _count(evals[0].get("prompt_columns")) <= 1 and isinstance(stats, Mapping):
        counts = tuple(_count(stats.get(k)) for k in ("successes", "failures", "errors"))
        found = _promptfoo_figure(
            "promptfoo's pass rate (successes / tests)", (counts[0], counts[1], counts[2]),
            batch.runs,
        )  # fmt: skip
        return [found] if found else []
    figures = []
    for column in columns:
        variant = column.get("variant")
        counts = tuple(
            _count(column.get(k))
            for k in ("test_pass_count", "test_fail_count", "test_error_count")
        )
        found = _promptfoo_figure(
            f"promptfoo's pass rate of column {variant} (testPassCount / tests)",
            (counts[0], counts[1], counts[2]),
            [r for r in batch.runs if r.variant == variant],
        )
        if found:
            figures.append(found)
    return figures


def headlines(batch: ImportedBatch) -> tuple[Headline, ...]:
    """The source's own headline figures (one log, job or eval at a time) beside trajguard's."""
    read = {"inspect": _inspect, "harbor": _harbor, "promptfoo": _promptfoo}.get(batch.source)
    return tuple(read(batch)) if read else ()
