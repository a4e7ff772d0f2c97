"""The bad-input corpus (tests/reliability/cases.yaml) against a checkout, as subprocesses.

Each case's files are made in a scratch directory (and the provider stub started when the case
needs one), then ``PYTHON -m trajguard.cli ARGV`` runs there with the checkout's ``src`` first on
``PYTHONPATH`` and a time limit. A case is *clean* when it ends with its expected exit code, its
expected message fragments, no traceback and no control character where ``clean_text`` forbids
one (and wrote nothing it should not); otherwise it is counted as a traceback, a hang (over the
limit), raw control characters in its output, or a wrong answer (another exit code or message).
Running it against the checkout before and after a change gives the before / after counts:

    python benchmarks/reliability_corpus.py --checkout /work/orig
    python benchmarks/reliability_corpus.py --checkout .
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _load(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, REPO / "tests" / "reliability" / file)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _corpus() -> Any:
    return _load("trajguard_corpus", "corpus.py")


def judge(
    case: Any, checkout: Path, python: str, limit_s: float, corpus: Any, stub: Any
) -> tuple[str, str]:
    """The case's outcome (clean, traceback, hang, control, wrong) and a one-line detail."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        corpus.materialise(case, root)
        env = {
            **os.environ,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONPATH": str(checkout / "src"),
            **case.env,
        }
        with corpus.provider_for(case, stub) as api_base:
            try:
                result = subprocess.run(
                    [python, "-m", "trajguard.cli", *corpus.argv_for(case, api_base)],
                    cwd=root,
                    capture_output=True,
                    text=True,
                    timeout=limit_s,
                    env=env,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                return "hang", f"no answer within {limit_s:.0f} s"
        output = result.stdout + result.stderr
        if "Traceback" in output:
            last = [line for line in result.stderr.splitlines() if line.strip()][-1:]
            return "traceback", last[0] if last else ""
        if result.returncode != case.exit:
            return "wrong", f"exit {result.returncode}, expected {case.exit}"
        missing = [f for f in case.stderr if f not in result.stderr]
        missing += [f for f in case.stdout if f not in result.stdout]
        missing += [
            f"{f} (in {name})"
            for name, f in case.file_has.items()
            if not (root / name).is_file() or f not in (root / name).read_text(errors="replace")
        ]
        if missing:
            return "wrong", f"message lacks {missing[0]!r}"
        written = [p for p in case.absent if os.path.lexists(root / p)]
        if written:
            return "wrong", f"wrote {written[0]}"
        unclean = corpus.unclean_outputs(case, root, result.stdout, result.stderr)
        if unclean:
            return "control", unclean[0]
        return "clean", ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=REPO, help="a checkout: its src/ runs")
    parser.add_argument("--python", default=sys.executable, help="the Python to run it with")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per case at most")
    parser.add_argument("--only", help="run the cases whose id contains this")
    args = parser.parse_args()
    corpus = _corpus()
    stub = _load("trajguard_provider_stub", "provider_stub.py")
    cases = [c for c in corpus.load_cases() if args.only is None or args.only in c.id]
    outcomes: Counter[str] = Counter()
    for case in cases:
        outcome, detail = judge(
            case, args.checkout.resolve(), args.python, args.limit, corpus, stub
        )
        outcomes[outcome] += 1
        if outcome != "clean":
            print(f"{outcome:>9}  {case.id}: {detail}", flush=True)
    print(
        f"{len(cases)} cases: {outcomes['clean']} clean, {outcomes['wrong']} wrong answer, "
        f"{outcomes['traceback']} traceback, {outcomes['hang']} hang, {outcomes['control']} "
        "with raw control characters"
    )


if __name__ == "__main__":
    main()
