"""The source tool's own headline figure beside trajguard's pass rate, and why they differ.

Each tool summarises a run in its own way: Inspect's ``accuracy()`` leaves errored samples out
and gives partial credit; Harbor averages the trials' rewards, a timed-out trial's included;
promptfoo counts an errored test among the ones that did not pass. trajguard's pass rate is the
share of judged runs that passed by its documented rule (a crash is a failure, a harness error
is not judged). The import summary shows both figures; when they differ, it says what in the
runs makes them differ, counted, so that neither figure is mistaken for the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from trajguard.importers._model import ImportedBatch, ImportedRun
from trajguard.importers._pass_rule import as_number
from trajguard.outcome import HARNESS_ERROR, is_crash_row

__all__ = ["Headline", "headlines"]

_PARTIAL_TEXT = frozenset({"p"})


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
    listed = list(runs)
    return sum(r.passed is True for r in listed), sum(r.passed is not None for r in listed)


def _crashed(run: ImportedRun) -> bool:
    return run.status != HARNESS_ERROR and is_crash_row(run.status, run.crashed)


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


def _inspect(batch: ImportedBatch) -> list[Headline]:
    logs = [log for log in batch.provenance.get("logs") or [] if isinstance(log, Mapping)]
    passes, judged = _counts(batch.runs)
    errored = sum(_crashed(r) for r in batch.runs)
    partial = sum(_partial(r) for r in batch.runs)
    harness = sum(r.status == HARNESS_ERROR for r in batch.runs)
    found = []
    for log in logs if len(logs) == 1 else []:
        for scorer, metrics in (log.get("scores") or {}).items():
            value = metrics.get("accuracy") if isinstance(metrics, Mapping) else None
            if not isinstance(value, int | float):
                continue
            reasons = []
            if _differ(float(value), passes, judged):
                if errored:
                    reasons.append(
                        f"{errored} errored sample(s): Inspect leaves them out of accuracy(), "
                        "trajguard counts each as a failed run (a crash)"
                    )
                if partial:
                    reasons.append(
                        f"{partial} run(s) with partial credit: accuracy() counts the credit, "
                        "trajguard's pass rule full credit only"
                    )
                if harness:
                    reasons.append(f"{harness} harness error(s): not judged by trajguard")
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


def _promptfoo(batch: ImportedBatch) -> list[Headline]:
    evals = [e for e in batch.provenance.get("evals") or [] if isinstance(e, Mapping)]
    stats: list[Any] = [e.get("stats") for e in evals]
    if len(evals) != 1 or not isinstance(stats[0], Mapping):
        return []
    won, lost, errors = (int(stats[0].get(k) or 0) for k in ("successes", "failures", "errors"))
    if won + lost + errors == 0:
        return []
    value = won / (won + lost + errors)
    passes, judged = _counts(batch.runs)
    reasons = []
    if _differ(value, passes, judged) and errors:
        reasons.append(
            f"{errors} errored test(s): promptfoo counts them as not passed, trajguard does not "
            "judge them (harness errors)"
        )
    return [
        Headline(
            name="promptfoo's pass rate (successes / tests)",
            value=value,
            passes=passes,
            judged=judged,
            reasons=tuple(reasons),
        )
    ]


def headlines(batch: ImportedBatch) -> tuple[Headline, ...]:
    """The source's own headline figures (one log, job or eval at a time) beside trajguard's."""
    read = {"inspect": _inspect, "harbor": _harbor, "promptfoo": _promptfoo}.get(batch.source)
    return tuple(read(batch)) if read else ()
