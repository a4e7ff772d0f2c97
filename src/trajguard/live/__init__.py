"""Live mode: N runs per scenario against a real model, compared as distributions.

Statistics, pure over arrays: :mod:`~trajguard.live.stats` (exact rate tests, intervals,
multiplicity, pass^k), :mod:`~trajguard.live.resample` (run-level permutation tests),
:mod:`~trajguard.live.location` (Welch, Brunner-Munzel), :mod:`~trajguard.live.power`
(power, detectable effects, runs needed) and :mod:`~trajguard.live.sequential` (stopping early).
Run tables to verdicts: :mod:`~trajguard.live.compare` (baseline against candidate),
:mod:`~trajguard.live.ab` (two variants) and :mod:`~trajguard.live.plan` (``trajguard plan``).
The method is described in ``docs/statistics.md``.
"""
