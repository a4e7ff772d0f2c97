"""ATIF conformance of trajectories captured at the wire endpoint, judged by Harbor and trajguard.

Every row of the given run sets (e.g. the framework matrix's, or an ``ab`` run of an example
suite) is written out as its trajectory file; Harbor's ``TrajectoryValidator`` (in
``.harbor-venv``, made by ``atif_conformance.py`` on first use) and ``trajguard.atif.validate``
judge each file. One line per run set: rows, trajectories captured at the wire, each side's
verdicts, agreement.

Run: python benchmarks/atif_wire.py RUNSET [RUNSET ...] [--venv .harbor-venv] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from atif_conformance import REPO, ensure_harbor, harbor

from trajguard import store
from trajguard.atif import validate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runsets", nargs="+", type=Path)
    parser.add_argument("--venv", type=Path, default=REPO / ".harbor-venv")
    parser.add_argument("--out", type=Path, help="keep the files here (default: a temp dir)")
    args = parser.parse_args()
    python = ensure_harbor(args.venv, "harbor", None)
    with tempfile.TemporaryDirectory(prefix="atif-wire-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        files: dict[Path, list[tuple[Path, bool]]] = {}
        for index, runset in enumerate(args.runsets):
            for row in store.read_runs(runset).to_dict("records"):
                if not isinstance(row["trajectory"], str):
                    files.setdefault(runset, [])
                    continue
                document = json.loads(row["trajectory"])
                path = out / f"{index}-{row['run_id']}.json".replace("/", "_")
                path.write_text(json.dumps(document), encoding="utf-8")
                wire = (document.get("extra") or {}).get("capture") == "wire"
                files.setdefault(runset, []).append((path, wire))
        listing = out / "files.txt"
        listing.write_text("\n".join(str(p) for group in files.values() for p, _ in group))
        verdicts = harbor(python, "validate", str(listing))
        print(
            "| run set | rows with a trajectory | captured at the wire | Harbor ok "
            "| trajguard ok | agree |"
        )
        print("|---|---:|---:|---:|---:|---:|")
        for runset, group in files.items():
            theirs = [bool(verdicts[str(p)]["valid"]) for p, _ in group]
            ours = [validate(p).valid for p, _ in group]
            agree = sum(t == o for t, o in zip(theirs, ours, strict=True))
            print(
                f"| {runset} | {len(group)} | {sum(w for _, w in group)} | {sum(theirs)} "
                f"| {sum(ours)} | {agree} |"
            )


if __name__ == "__main__":
    main()
