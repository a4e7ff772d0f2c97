"""The bad-input corpus (tests/reliability/cases.yaml) against a checkout, as subprocesses.

Each case's files are made in a scratch directory (and the provider stub started when the case
needs one), then ``PYTHON -m trajguard.cli ARGV`` (``PYTHON -m pytest ARGV`` for a frozen-mode
case) runs there with the checkout's ``src`` first on
``PYTHONPATH`` and a time limit. A case is *clean* when it ends with its expected exit code, its
expected message fragments, no traceback and no control character where ``clean_text`` forbids
one (and wrote nothing it should not); otherwise it is counted as a traceback, a hang (over the
limit), raw control characters in its output, or a wrong answer (another exit code or message).
Running it against the checkout before and after a change gives the before / after counts:

    python benchmarks/reliability_corpus.py --checkout /work/orig
    python benchmarks/reliability_corpus.py --checkout .

Each case's peak resident memory (the trajguard process's ``ru_maxrss``, from ``wait4`` in a
small launcher it is forked from: see ``_LAUNCHER``) is measured too: a case over
``--memory-bound`` (512 MB unless given) is counted as ``memory``,
and the largest peak is printed with the counts.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import threading
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


class _Result:
    def __init__(self, returncode: int, stdout: str, stderr: str, peak_mb: float) -> None:
        self.returncode, self.stdout, self.stderr, self.peak_mb = (
            returncode,
            stdout,
            stderr,
            peak_mb,
        )


_LAUNCHER = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as out:
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""
"""Runs the case's command and writes its exit code and peak resident memory. Linux counts in a
process's ``ru_maxrss`` the memory of the process it was forked from (until it execs), so the
command is forked from this small interpreter, not from the benchmark, which grows as it makes
the cases' files (a run set of 1,000,001 rows): measured from here, every case would seem to
use what the benchmark holds."""


def _run(argv: list[str], cwd: Path, env: dict[str, str], limit_s: float) -> _Result | None:
    """Run ``argv``; its exit code, output and peak resident memory (MB), or ``None`` when it
    did not end within ``limit_s`` (it is killed, with its process group)."""
    descriptor, name = tempfile.mkstemp(prefix="trajguard-corpus-peak-")
    os.close(descriptor)
    report = Path(name)
    process = subprocess.Popen(
        [argv[0], "-c", _LAUNCHER, str(report), *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    out: dict[str, bytes] = {}

    def drain(name: str, stream: Any) -> None:
        out[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=(name, stream))
        for name, stream in (("stdout", process.stdout), ("stderr", process.stderr))
    ]
    for reader in readers:
        reader.start()
    killed: list[bool] = []

    def kill() -> None:
        killed.append(True)
        os.killpg(process.pid, signal.SIGKILL)

    timer = threading.Timer(limit_s, kill)
    timer.start()
    process.wait()
    timer.cancel()
    for reader in readers:
        reader.join()
    if killed:
        report.unlink()
        return None
    returncode, peak_kb = (int(word) for word in report.read_text().split())
    report.unlink()
    text = {k: v.decode("utf-8", "replace") for k, v in out.items()}
    # ru_maxrss is in kilobytes on Linux
    return _Result(returncode, text["stdout"], text["stderr"], peak_kb / 1024)


def judge(
    case: Any, checkout: Path, python: str, limit_s: float, corpus: Any, stub: Any
) -> tuple[str, str, float]:
    """The case's outcome (clean, traceback, hang, control, wrong), a one-line detail and the
    peak resident memory of its trajguard process in MB."""
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
            argv = corpus.command_for(case, python, api_base)
            result = _run(argv, root, env, limit_s)
        if result is None:
            return "hang", f"no answer within {limit_s:.0f} s", 0.0
        output = result.stdout + result.stderr
        if "Traceback" in output:
            last = [line for line in result.stderr.splitlines() if line.strip()][-1:]
            return "traceback", last[0] if last else "", result.peak_mb
        if result.returncode != case.exit:
            return "wrong", f"exit {result.returncode}, expected {case.exit}", result.peak_mb
        missing = [f for f in case.stderr if f not in result.stderr]
        missing += [f for f in case.stdout if f not in result.stdout]
        missing += [
            f"{f} (in {name})"
            for name, f in case.file_has.items()
            if not (root / name).is_file() or f not in (root / name).read_text(errors="replace")
        ]
        if missing:
            return "wrong", f"message lacks {missing[0]!r}", result.peak_mb
        written = [p for p in case.absent if os.path.lexists(root / p)]
        if written:
            return "wrong", f"wrote {written[0]}", result.peak_mb
        unclean = corpus.unclean_outputs(case, root, result.stdout, result.stderr)
        if unclean:
            return "control", unclean[0], result.peak_mb
        return "clean", "", result.peak_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=REPO, help="a checkout: its src/ runs")
    parser.add_argument("--python", default=sys.executable, help="the Python to run it with")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per case at most")
    parser.add_argument("--only", help="run the cases whose id contains this")
    parser.add_argument(
        "--memory-bound", type=float, default=512.0, help="MB of peak memory a case may use"
    )
    args = parser.parse_args()
    corpus = _corpus()
    stub = _load("trajguard_provider_stub", "provider_stub.py")
    cases = [c for c in corpus.load_cases() if args.only is None or args.only in c.id]
    outcomes: Counter[str] = Counter()
    peaks: list[tuple[float, str]] = []
    for case in cases:
        outcome, detail, peak = judge(
            case, args.checkout.resolve(), args.python, args.limit, corpus, stub
        )
        if outcome == "clean" and peak > args.memory_bound:
            outcome, detail = "memory", f"peak {peak:.0f} MB over {args.memory_bound:.0f} MB"
        outcomes[outcome] += 1
        peaks.append((peak, case.id))
        if outcome != "clean":
            print(f"{outcome:>9}  {case.id}: {detail}", flush=True)
    print(
        f"{len(cases)} cases: {outcomes['clean']} clean, {outcomes['wrong']} wrong answer, "
        f"{outcomes['traceback']} traceback, {outcomes['hang']} hang, {outcomes['control']} "
        f"with raw control characters, {outcomes['memory']} over {args.memory_bound:.0f} MB"
    )
    if peaks:
        top = sorted(peaks, reverse=True)[:3]
        shown = ", ".join(f"{case} {peak:.0f} MB" for peak, case in top)
        print(f"peak memory: highest {shown}; median {sorted(peaks)[len(peaks) // 2][0]:.0f} MB")


if __name__ == "__main__":
    main()
