"""The judge cache answers only the same run asking the same question: distinct runs with the
same text get independent judgements (issue 35)."""

from __future__ import annotations

import asyncio
from typing import Any

from trajguard_testkit.scripted import Scripted

from trajguard.judge import JudgeCache, JudgeSettings, RunKey, grade, sample_seed

SETTINGS = JudgeSettings(rubric="names Paris", model="fake/judge", samples=3)


def counting_judge() -> Scripted:
    """A judge whose verdict is the parity of the call's seed (a seeded, deterministic judge)."""

    def reply(messages: Any, options: dict[str, Any]) -> str:
        return "VERDICT: PASS" if options["seed"] % 2 == 0 else "VERDICT: FAIL"

    return Scripted(reply)


async def test_two_runs_with_one_text_are_judged_twice_with_their_own_seeds() -> None:
    model, cache = counting_judge(), JudgeCache()
    first = await cache.judgement(lambda _: model, SETTINGS, "Paris.", RunKey("s/base/0", 11))
    second = await cache.judgement(lambda _: model, SETTINGS, "Paris.", RunKey("s/base/1", 12))
    assert (cache.calls, len(model.calls)) == (2, 6)
    assert not first.cached and not second.cached
    seeds = [options["seed"] for _, options in model.calls]
    assert seeds == [sample_seed(11, i) for i in range(3)] + [sample_seed(12, i) for i in range(3)]
    assert first.verdicts == tuple(s % 2 == 0 for s in seeds[:3])


async def test_the_same_run_asking_again_is_answered_from_the_cache() -> None:
    model, cache = counting_judge(), JudgeCache()
    run = RunKey("s/base/0", 11)
    first, again = await asyncio.gather(
        cache.judgement(lambda _: model, SETTINGS, "Paris.", run),
        cache.judgement(lambda _: model, SETTINGS, "Paris.", run),
    )
    assert (cache.calls, len(model.calls)) == (1, 3)
    assert again.cached and again.samples == first.samples
    other_text = await cache.judgement(lambda _: model, SETTINGS, "Lyon.", run)
    assert not other_text.cached and cache.calls == 2


async def test_a_run_seed_changes_every_samples_seed_and_none_keeps_the_index() -> None:
    model = counting_judge()
    await grade(model, SETTINGS, "Paris.")
    assert [options["seed"] for _, options in model.calls] == [0, 1, 2]
    seeds = {sample_seed(run, i) for run in range(200) for i in range(5)}
    assert len(seeds) == 1000  # no two (run, sample) pairs of 200 runs share a seed
    assert all(0 <= s < 2**31 for s in seeds)
