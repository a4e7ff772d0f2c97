"""Model-judged criteria: a rubric, a judge model, k verdicts per judged text; and the pairwise
judge of an A/B (:func:`prefer`: which of two answers to one input is better).

:func:`grade` asks a :class:`~trajguard.capture.ChatModel` (the embedded model, any
litellm model, or a frozen test's cassette model) whether a text meets a rubric, ``samples``
times; :class:`JudgeCache` keeps each run's judgements (a run asking again is answered from
it; another run never is: runs stay independent). The judge's calls are its own: they never
enter the judged agent's trajectory, shape, tokens or steps.

In a frozen test, hand ``grade`` a model of the test's cassette and the verdicts replay::

    async def test_answer_is_polite(llm_cassette):
        judge = llm_cassette.model("local/smollm2", name="judge")
        settings = JudgeSettings(rubric="The answer is polite.", model="local/smollm2")
        judgement = await grade(judge, settings, answer)
        assert decide(judgement.verdicts, "majority")
"""

from trajguard.judge._grade import (
    PASS_RULES,
    JudgeCache,
    Judgement,
    JudgeSample,
    JudgeSettings,
    RunKey,
    decide,
    grade,
    judgement_record,
    sample_seed,
)
from trajguard.judge._pairwise import (
    Choice,
    PairwiseSettings,
    Preference,
    pair_draw,
    pairwise_messages,
    parse_preference,
    prefer,
)
from trajguard.judge._prompt import judge_messages, parse_verdict, trajectory_text

__all__ = [
    "PASS_RULES",
    "Choice",
    "JudgeCache",
    "JudgeSample",
    "JudgeSettings",
    "Judgement",
    "PairwiseSettings",
    "Preference",
    "RunKey",
    "decide",
    "grade",
    "judge_messages",
    "judgement_record",
    "pair_draw",
    "pairwise_messages",
    "parse_preference",
    "parse_verdict",
    "prefer",
    "sample_seed",
    "trajectory_text",
]
