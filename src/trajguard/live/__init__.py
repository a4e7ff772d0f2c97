"""Live mode: N runs per scenario against a real model, compared as distributions.

The statistics are pure functions over arrays (:mod:`trajguard.live.stats`,
:mod:`trajguard.live.resample`, :mod:`trajguard.live.power`, :mod:`trajguard.live.sequential`);
:mod:`trajguard.live.compare` and :mod:`trajguard.live.ab` turn run tables into verdicts.
The method is described in ``docs/statistics.md``.
"""
