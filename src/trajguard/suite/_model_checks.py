"""Load-time checks of a suite's model strings: the defaults', every variant's and every
judge's — an empty string, the embedded model with an endpoint, or a string naming no provider
litellm knows (``local/smollm3``: "did you mean 'local/smollm2'?") fails before anything
starts, instead of at the first call of the first run."""

from __future__ import annotations

from collections.abc import Callable

from trajguard.suite._judge import JudgeCriterion
from trajguard.suite._models import Suite

__all__ = ["check_models"]

Where = tuple[int | str, ...]
Report = Callable[[Where, str, str | None], None]

_PROVIDER = (
    "local/smollm2 is the embedded model; any other is provider/model as litellm names it "
    "(https://docs.litellm.ai/docs/providers), or openai/NAME with api_base for an "
    "OpenAI-compatible server"
)
_API = (
    "defaults.api_base is the endpoint of every model of the suite; remove it to run local/smollm2"
)


def check_models(suite: Suite, report: Report) -> None:
    """Report each model string of ``suite`` that cannot be called, where it is written."""
    from trajguard.capture import model_problem
    from trajguard.local_model import is_local_model

    api_base = suite.defaults.api_base
    models: list[tuple[Where, str, str | None]] = [
        (("defaults", "model"), suite.defaults.model, api_base)
    ]
    variant_sets: list[tuple[Where, dict[str, object]]] = [(("variants",), dict(suite.variants))]
    variant_sets += [
        (("scenarios", i, "variants"), dict(s.variants)) for i, s in enumerate(suite.scenarios)
    ]
    models += [
        ((*where, name, "model"), str(model), api_base)
        for where, variants in variant_sets
        for name, variant in variants.items()
        if (model := getattr(variant, "model", None)) is not None
    ]
    models += [
        (("scenarios", i, "pass", j), criterion.model, criterion.api_base)
        for i, scenario in enumerate(suite.scenarios)
        for j, criterion in enumerate(scenario.pass_criteria)
        if isinstance(criterion, JudgeCriterion)
    ]
    for where, model, endpoint in models:
        problem = model_problem(model, endpoint)
        if problem is None:
            continue
        if not model.strip():
            report(where, problem, "e.g. local/smollm2 or ollama_chat/qwen2.5:1.5b")
        elif is_local_model(model):  # with the suite's endpoint (a judge's is refused before)
            report(where if where[0] != "defaults" else ("defaults", "api_base"), problem, _API)
        else:
            report(where, problem, _PROVIDER)
