"""Differential ATIF conformance: trajguard's ``validate`` against Harbor's validator.

    .venv/bin/python benchmarks/atif_conformance.py [--seed 11] [--out DIR] [--before SRC_DIR]

Harbor (PyPI ``harbor``) is ATIF's reference implementation and needs Python >= 3.12, so it runs
in its own venv, ``.harbor-venv`` at the repository root, made here on first use (a Python 3.12+
is looked for as ``--harbor-python``, ``python3.12`` / ``python3.13`` on PATH, then pyenv).
Through ``_atif_harbor.py`` Harbor builds trajectories of ATIF v1.5 to v1.8 with its own models
and three of its bundled agent converters, and ``_atif_mutations.py`` changes copies of them one
field at a time; trajguard's writers add theirs (``_atif_writers.py``), and every document
trajguard accepts is also written again as the normalised trajectory a run row stores, and as
``trajguard export`` writes that row.

Then Harbor's ``TrajectoryValidator`` and ``trajguard.atif.validate`` judge every file, and for
every file trajguard accepts, normalise -> shape must be stable: the same from the dict and from
the loaded model, idempotent, and the same shape every way. The table shows the agreement per
origin. Exit 1 on a disagreement that is not one of the documented deliberate differences, or on
an unstable normalisation. ``--before SRC_DIR`` also judges the files with an older trajguard
(its ``src`` directory, e.g. from ``git archive``) the way its CLI did, for a before/after figure.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _atif_writers import export_documents, row_documents, trajguard_documents

from trajguard.atif import ValidationReport, load_trajectory, validate
from trajguard.core.normalize import canonical_json, normalize
from trajguard.core.shape import shape

REPO = Path(__file__).resolve().parents[1]
HARBOR_SIDE = Path(__file__).with_name("_atif_harbor.py")
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
DELIBERATE = {
    "root without schema_version": 'RFC 0001, root-level metadata: "schema_version | String | '
    'Required | String defining ATIF compatibility" (Harbor fills in its default version)',
}
BEFORE_SCRIPT = """
import json, sys, warnings
from pathlib import Path
from trajguard.atif import load_trajectory
from trajguard.errors import TrajguardError
from trajguard.normative import check_normative
verdicts = {}
for name in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            verdicts[name] = not check_normative(load_trajectory(Path(name)))
    except TrajguardError:
        verdicts[name] = False
print(json.dumps(verdicts))
"""


def _python312(explicit: str | None) -> str:
    candidates = [explicit] if explicit else []
    candidates += [shutil.which("python3.12"), shutil.which("python3.13")]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[2-9]*/bin/python")))
    for candidate in filter(None, candidates):
        probe = [candidate, "-c", "import sys; print(sys.version_info >= (3, 12))"]
        if subprocess.run(probe, capture_output=True, text=True).stdout.strip() == "True":
            return candidate
    sys.exit("atif_conformance: Harbor needs Python >= 3.12; none found (pass --harbor-python)")


def ensure_harbor(venv: Path, spec: str, explicit_python: str | None) -> Path:
    """The venv's python, with ``harbor`` importable (the venv is made when missing)."""
    python = venv / "bin" / "python"
    if python.exists():
        probe = subprocess.run([str(python), "-c", "import harbor"], capture_output=True, env=ENV)
        if probe.returncode == 0:
            return python
    print(f"making {venv} with {spec} (first run only) ...", flush=True)
    subprocess.run([_python312(explicit_python), "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", spec], check=True)
    return python


def harbor(python: Path, *args: str) -> Any:
    done = subprocess.run(
        [str(python), str(HARBOR_SIDE), *args], capture_output=True, text=True, env=ENV
    )
    if done.returncode != 0:
        sys.exit(f"atif_conformance: Harbor side failed ({args[0]}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def deliberate(report: ValidationReport, harbor_valid: bool) -> str | None:
    """Which documented deliberate difference explains a disagreement, if one does."""
    error = report.load_error
    missing_version = error is not None and "no schema_version" in error.message
    return "root without schema_version" if harbor_valid and missing_version else None


def unstable(path: Path) -> list[str]:
    """How normalise -> shape is not stable on an accepted file (empty when it is)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an accepted file has no unknown field to warn about
        loaded = load_trajectory(path)
    from_dict, from_model = normalize(data), normalize(loaded)
    problems = []
    if canonical_json(from_dict) != canonical_json(from_model):
        problems.append("normalize(dict) != normalize(loaded)")
    again = normalize(json.loads(canonical_json(from_dict)))
    if canonical_json(again) != canonical_json(from_dict):
        problems.append("normalize is not idempotent")
    if not shape(data) == shape(loaded) == shape(from_dict) == shape(again):
        problems.append("shape differs between dict, model and normalised forms")
    return problems


@dataclass(frozen=True, kw_only=True)
class Run:
    """Every file of one harness run with each side's verdict."""

    out: Path
    manifest: list[dict[str, Any]]
    reports: dict[str, ValidationReport]
    harbor: dict[str, dict[str, Any]]
    before: dict[str, bool] = field(default_factory=dict)

    def theirs(self, entry: dict[str, Any]) -> bool:
        return bool(self.harbor[str(self.out / entry["file"])]["valid"])

    def ours(self, entry: dict[str, Any]) -> bool:
        return self.reports[entry["file"]].valid

    def old(self, entry: dict[str, Any]) -> bool | None:
        return self.before.get(str(self.out / entry["file"]))


def _write(out: Path, stem: str, document: dict[str, Any], origin: str) -> dict[str, Any]:
    (out / f"{stem}.json").write_text(json.dumps(document), encoding="utf-8")
    return {"file": f"{stem}.json", "origin": origin, "version": document.get("schema_version")}


def collect(args: argparse.Namespace, python: Path, out: Path) -> Run:
    """Generate every file, then have Harbor, trajguard (and the older trajguard) judge it."""
    numbers = ["--seed", str(args.seed), "--models", str(args.models)]
    numbers += ["--converted", str(args.converted), "--mutated", str(args.mutated)]
    manifest: list[dict[str, Any]] = harbor(python, "generate", str(out), *numbers)
    manifest += [_write(out, *written) for written in trajguard_documents(args.seed)]
    reports = {entry["file"]: validate(out / entry["file"]) for entry in manifest}
    accepted = [(e["origin"], out / e["file"]) for e in manifest if reports[e["file"]].valid]
    for written in [*row_documents(accepted), *export_documents(accepted)]:
        manifest.append(_write(out, *written))
        reports[manifest[-1]["file"]] = validate(out / manifest[-1]["file"])
    listing = out / "files.txt"
    listing.write_text("\n".join(str(out / e["file"]) for e in manifest), encoding="utf-8")
    before: dict[str, bool] = {}
    if args.before is not None:
        command = [sys.executable, "-c", BEFORE_SCRIPT, str(listing)]
        env = {**ENV, "PYTHONPATH": str(args.before)}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        before = json.loads(done.stdout)
    verdicts = harbor(python, "validate", str(listing))
    return Run(out=out, manifest=manifest, reports=reports, harbor=verdicts, before=before)


def _group(origin: str) -> str:
    if origin.startswith("trajguard export"):
        return "trajguard export"
    return "trajguard normalised rows" if origin.startswith("trajguard normalised row") else origin


def _versions(values: set[str | None]) -> str:
    known = sorted(v.removeprefix("ATIF-v") for v in values if v and v.startswith("ATIF-v"))
    other = len([v for v in values if not (v and v.startswith("ATIF-v"))])
    shown = f"{known[0]}-{known[-1]}" if len(known) > 1 else "".join(known)
    return shown + (f" +{other} other" if other else "")


def print_table(run: Run) -> None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in run.manifest:
        groups[_group(entry["origin"])].append(entry)
    columns = f"{'origin':<44} {'files':>5} {'ATIF':>16} {'Harbor ok':>9} {'trajguard ok':>12}"
    print(columns + " agree" + (" before" if run.before else ""))
    for origin, entries in sorted(groups.items()):
        versions = _versions({e.get("version") for e in entries})
        line = f"{origin:<44} {len(entries):>5} {versions:>16} "
        line += f"{sum(map(run.theirs, entries)):>9} {sum(map(run.ours, entries)):>12} "
        line += f"{sum(run.ours(e) == run.theirs(e) for e in entries):>5}"
        if run.before:
            line += f" {sum(run.old(e) == run.theirs(e) for e in entries):>6}"
        print(line)


def print_agreement(run: Run, explained: dict[str, list[dict[str, Any]]]) -> None:
    total = len(run.manifest)
    agree = sum(run.ours(e) == run.theirs(e) for e in run.manifest)
    compared = total - sum(len(cases) for cases in explained.values())
    print(f"\nvalidity agreement: {agree} of {total} files ({100 * agree / total:.1f} %)")
    share = 100 * agree / compared
    print(f"  outside the deliberate differences: {agree} of {compared} ({share:.1f} %)")
    for version in ("ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7", "ATIF-v1.8"):
        entries = [e for e in run.manifest if e.get("version") == version]
        agreed = sum(run.ours(e) == run.theirs(e) for e in entries)
        print(f"  {version}: {agreed} of {len(entries)} files agree")
    made = [e for e in run.manifest if e["origin"].startswith("harbor")]
    print(f"  built by Harbor's models and converters: {len(made)} files, of which")
    print(f"  {sum(run.ours(e) == run.theirs(e) for e in made)} agree")
    if run.before:
        made = ("trajguard normalised rows", "trajguard export")
        inputs = [e for e in run.manifest if _group(e["origin"]) not in made]
        old = sum(run.old(e) != run.theirs(e) for e in inputs)
        new = sum(run.ours(e) != run.theirs(e) for e in inputs)
        print(f"disagreements on the {len(inputs)} files other than rows: before {old}, now {new}")
        everything = sum(run.old(e) != run.theirs(e) for e in run.manifest)
        print(f"  (all {total} files, rows included: before {everything})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--models", type=int, default=150, help="runs built with Harbor's models")
    parser.add_argument("--converted", type=int, default=36, help="runs from Harbor's converters")
    parser.add_argument("--mutated", type=int, default=130, help="one-field mutations")
    parser.add_argument("--out", type=Path, help="keep the files here (default: a temp dir)")
    parser.add_argument("--venv", type=Path, default=REPO / ".harbor-venv")
    parser.add_argument("--harbor-spec", default="harbor", help="what pip installs in the venv")
    parser.add_argument("--harbor-python", help="a Python >= 3.12 to make the venv with")
    parser.add_argument("--before", type=Path, help="src dir of an older trajguard to compare")
    args = parser.parse_args()
    started = time.perf_counter()
    python = ensure_harbor(args.venv, args.harbor_spec, args.harbor_python)
    venv_s = time.perf_counter() - started
    versions = harbor(python, "version")
    out = args.out or Path(tempfile.mkdtemp(prefix="atif-conformance-"))
    out.mkdir(parents=True, exist_ok=True)
    run = collect(args, python, out)
    explained: dict[str, list[dict[str, Any]]] = defaultdict(list)
    unexplained: list[dict[str, Any]] = []
    instabilities: list[tuple[str, str]] = []
    for entry in run.manifest:
        report = run.reports[entry["file"]]
        if report.valid != run.theirs(entry):
            reason = deliberate(report, run.theirs(entry))
            why = str(report.load_error) if report.load_error else [str(v) for v in report.errors]
            case = {**entry, "harbor": run.harbor[str(out / entry["file"])], "trajguard": why}
            (explained[reason] if reason else unexplained).append(case)
        if report.valid:
            instabilities += [(entry["file"], problem) for problem in unstable(out / entry["file"])]

    print(f"Harbor {versions['harbor']} (Python {versions['python']}); trajguard from {REPO}")
    print(f"files in {out}\n")
    print_table(run)
    print_agreement(run, explained)
    for reason, cases in explained.items():
        print(f"\ndeliberate difference ({len(cases)} files): {reason}")
        print(f"  because: {DELIBERATE[reason]}")
        for case in cases:
            print(f"  {case['file']} ({case['origin']}: {case.get('detail')})")
    for case in unexplained:
        print(f"\nDISAGREEMENT {case['file']} ({case['origin']}: {case.get('detail')})")
        print(f"  Harbor: {case['harbor']}\n  trajguard: {case['trajguard']}")
    for file, problem in instabilities:
        print(f"UNSTABLE {file}: {problem}")
    accepted = sum(map(run.ours, run.manifest))
    shaky = len({file for file, _ in instabilities})
    print(f"\nnormalise -> shape stable on {accepted - shaky} of {accepted} accepted files")
    print(f"time: {time.perf_counter() - started:.1f} s (venv check or setup: {venv_s:.1f} s)")
    summary = {
        "harbor": versions,
        "files": len(run.manifest),
        "unexplained": unexplained,
        "deliberate": {reason: len(cases) for reason, cases in explained.items()},
        "unstable": instabilities,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str), encoding="utf-8")
    return 1 if unexplained or instabilities else 0


if __name__ == "__main__":
    sys.exit(main())
