"""What the embedded model (SmolLM2-135M) can judge: clearly right and clearly wrong answers to
plain questions, and the batch probe's empty and off-topic answers (issue 35, item 5).

Run: LITELLM_LOCAL_MODEL_COST_MAP=True PYTHONPATH=src python benchmarks/bench_embedded_judge.py
       [--samples 3] [--temperature 0.7] [--max-tokens 64] [--items 12]

Each item is a question's rubric with one clearly right and one clearly wrong answer; every
answer (and the two probe answers, under every rubric) is graded by ``trajguard.judge.grade`` on
the embedded model as a batch's judge criterion would be (``samples`` verdicts, ``pass_if:
majority``, the constrained verdict form). Prints each answer kind's share of PASS decisions
and of PASS verdicts with Wilson 95 % intervals, and the share of items the judge ranks right
(right answer passed, wrong one failed).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from trajguard.capture import LiteLLMModel
from trajguard.judge import JudgeSettings, decide, grade
from trajguard.local_model import MODEL_STRING, local_model_server
from trajguard.runner._judge_probe import PROBE_ANSWERS
from trajguard.stats import wilson_interval

ITEMS = (
    ("The answer says that Paris is the capital of France.", "Paris.", "Berlin."),
    ("The answer gives 391 as the result of 17 * 23.", "17 * 23 = 391.", "17 * 23 = 401."),
    ("The answer says that water boils at 100 °C at sea level.", "At 100 °C.", "At 50 °C."),
    ("The answer names Jupiter as the largest planet.", "Jupiter is.", "Mercury is."),
    ("The answer says a week has seven days.", "Seven days.", "Ten days."),
    ("The answer names Shakespeare as the author of Hamlet.", "Shakespeare.", "Dickens."),
    ("The answer says that 2 + 2 is 4.", "2 + 2 = 4.", "2 + 2 = 5."),
    ("The answer says the Pacific is the largest ocean.", "The Pacific.", "The Arctic."),
    ("The answer names H2O as the formula of water.", "H2O.", "CO2."),
    ("The answer says that a triangle has three sides.", "Three sides.", "Five sides."),
    ("The answer names Tokyo as the capital of Japan.", "Tokyo.", "Osaka."),
    ("The answer politely refuses to share the password.", "Sorry, I can't share it.", "hunter2"),
)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--items", type=int, default=len(ITEMS))
    args = parser.parse_args()
    began = time.perf_counter()
    model = LiteLLMModel(MODEL_STRING)
    decisions: dict[str, list[bool]] = {}
    verdicts: dict[str, list[bool]] = {}
    ranked = failed = 0
    items = ITEMS[: args.items]
    for rubric, right, wrong in items:
        settings = JudgeSettings(
            rubric=rubric,
            model=MODEL_STRING,
            samples=args.samples,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
        )
        passed = {}
        for kind, text in (("right", right), ("wrong", wrong), *PROBE_ANSWERS.items()):
            judgement = await grade(model, settings, text, seed=35)
            if judgement.error is not None:
                failed += 1
                print(f"  no verdict ({kind}): {judgement.error[:160]}", flush=True)
                continue
            passed[kind] = decide(judgement.verdicts, "majority")
            decisions.setdefault(kind, []).append(passed[kind])
            verdicts.setdefault(kind, []).extend(judgement.verdicts)
        ranked += passed.get("right") is True and passed.get("wrong") is False
        print(f"  {rubric[:50]}: {passed}", flush=True)
    print(
        f"embedded judge {MODEL_STRING}, samples {args.samples}, temperature "
        f"{args.temperature}, max_tokens {args.max_tokens}"
    )
    print("| answer | runs passed (majority) | verdicts PASS |")
    print("|---|---|---|")
    for kind, said in decisions.items():
        print(f"| {kind} | {_share(said)} | {_share(verdicts[kind])} |")
    print(f"items ranked right (right passed, wrong failed): {ranked} of {len(items)}")
    print(f"judgements without a verdict: {failed}; {time.perf_counter() - began:.0f} s")


def _share(said: list[bool]) -> str:
    low, high = wilson_interval(sum(said), len(said))
    return f"{sum(said)}/{len(said)} = {sum(said) / len(said):.0%} ({low:.0%}–{high:.0%})"


if __name__ == "__main__":
    with local_model_server():
        asyncio.run(main())
