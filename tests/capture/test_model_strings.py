"""Model strings checked before any call: litellm's own provider lookup, asked offline and
without touching its settings; a near-miss of the embedded model gets a "did you mean" (issue
41: ``--model local/smollm3`` passed ``validate`` and failed 1 min 28 s into the batch)."""

from __future__ import annotations

import sys

import pytest

from trajguard.capture import LiteLLMModel, model_problem

pytestmark = pytest.mark.filterwarnings("ignore:Items? .* the `ReadOnly` qualifier:UserWarning")


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("local/smollm3", "did you mean 'local/smollm2' (the embedded model)?"),
        ("local/smolm2", "did you mean 'local/smollm2' (the embedded model)?"),
        ("locl/smollm2", "did you mean 'local/smollm2' (the embedded model)?"),
        ("local/llama3", "did you mean 'local/smollm2' (the embedded model)?"),
        ("opanai/gpt-4o-mini", "did you mean 'openai/gpt-4o-mini'?"),
        ("qwen2.5", "write provider/model, e.g. local/smollm2, ollama_chat/qwen2.5:1.5b"),
    ],
)
def test_a_string_naming_no_provider_is_refused_with_what_was_meant(
    model: str, expected: str
) -> None:
    problem = model_problem(model, None)
    assert problem is not None
    assert problem.startswith(f"model {model!r} names no provider litellm knows")
    assert expected in problem


@pytest.mark.parametrize(
    ("model", "api_base"),
    [
        ("local/smollm2", None),
        (" LOCAL/SMOLLM2 ", None),
        ("openai/gpt-4o-mini", None),
        ("gpt-4o-mini", None),  # litellm knows the model's provider without a prefix
        ("ollama_chat/qwen2.5:1.5b", None),
        ("anthropic/claude-x", None),
        ("hosted_vllm/my-model", "http://127.0.0.1:8000/v1"),
        ("openai/served-name", "http://127.0.0.1:8000/v1"),
    ],
)
def test_a_string_litellm_knows_the_provider_of_is_accepted(
    model: str, api_base: str | None
) -> None:
    assert model_problem(model, api_base) is None


def test_the_lookup_prints_nothing_and_leaves_litellms_settings_alone(
    capfd: pytest.CaptureFixture[str],
) -> None:
    import litellm

    before = litellm.suppress_debug_info
    capfd.readouterr()
    assert model_problem("local/smollm3", None) is not None
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")  # litellm's lookup prints a coloured line on a miss
    assert litellm.suppress_debug_info is before


def test_a_provider_that_signs_in_when_looked_up_is_taken_as_declared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """github_copilot's lookup starts an OAuth device flow: it must never be asked."""
    from litellm.litellm_core_utils import get_llm_provider_logic as logic

    if not hasattr(logic, "declared_authenticating_provider"):
        pytest.skip("this litellm has no providers that sign in on lookup")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("get_llm_provider was asked about a provider that signs in")

    monkeypatch.setattr(logic, "get_llm_provider", refuse)
    assert model_problem("github_copilot/gpt-4o", None) is None


def test_the_embedded_model_and_the_client_do_not_import_litellm() -> None:
    """The client checks the provider on its call, not when made: making one stays cheap."""
    import subprocess

    code = (
        "import sys\n"
        "from trajguard.capture._llm import LiteLLMModel, model_problem\n"
        "assert model_problem('local/smollm2', None) is None\n"
        "LiteLLMModel('local/smollm3')\n"
        "print('litellm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "False"


def test_the_client_refuses_what_it_refused_before() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        LiteLLMModel(" ")
    with pytest.raises(ValueError, match="do not pass api_base"):
        LiteLLMModel("local/smollm2", api_base="http://127.0.0.1:9/v1")
