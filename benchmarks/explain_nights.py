"""What the reports of re-compared real nights explain: per night, each explained scenario's
criterion that rose most, its exemplar pair's tool sequences, and whether their diff shows the
tool change; and whether a night that changed nothing drew a contrast.

    python benchmarks/real_nightly.py --recompare benchmarks/data/real-nights-2026-12-01 --out DIR
    python benchmarks/explain_nights.py DIR

Reads only ``DIR/<night>/comparison.json`` (no model, no run sets).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trajguard.results import read_document


def _sequence(seq: tuple[str, ...]) -> str:
    return " > ".join(seq) or "(none)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the --out directory of real_nightly.py --recompare")
    args = parser.parse_args(argv)
    nights = sorted(p for p in args.out.iterdir() if (p / "comparison.json").is_file())
    if not nights:
        print(f"no <night>/comparison.json under {args.out}", file=sys.stderr)
        return 2
    print(
        "| night | scenario | verdict | criterion that rose most | baseline exemplar | "
        "candidate exemplar | diff shows the tool change |"
    )
    print("|---|---|---|---|---|---|---|")
    for night in nights:
        document = read_document((night / "comparison.json").read_bytes())
        verdicts = {s.scenario: s.verdict.value for s in document.comparison.scenarios}
        explained = {n: f.explanation for n, f in document.scenarios.items() if f.explanation}
        if not explained:
            print(f"| {night.name} | (none explained) | — | — | — | — | — |")
        for name, explanation in explained.items():
            rising = [c for c in explanation.criteria if c.moved > 0]
            top = max(rising, key=lambda c: c.moved, default=None)
            cause = (
                f"{top.criterion} {top.baseline.hits}/{top.baseline.n} → "
                f"{top.candidate.hits}/{top.candidate.n}"
                if top
                else "—"
            )
            pair = explanation.exemplars
            base = pair.baseline if pair else None
            cand = pair.candidate if pair else None
            shows = bool(pair and any(line.startswith("tool_calls:") for line in pair.diff))
            print(
                f"| {night.name} | {name} | {verdicts[name]} | {cause} | "
                f"{_sequence(base.sequence) if base else '—'} ({base.passed if base else '—'}) | "
                f"{_sequence(cand.sequence) if cand else '—'} ({cand.passed if cand else '—'}) | "
                f"{'shared path' if pair and pair.shared_path else shows} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
