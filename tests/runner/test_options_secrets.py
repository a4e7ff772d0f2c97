"""An endpoint with a secret in it is stored redacted in the manifest, and a resumed batch asks
for it again instead of calling the redacted URL or printing the secret."""

from __future__ import annotations

import pytest

from trajguard.errors import SuiteError, UsageError
from trajguard.runner import BatchOptions
from trajguard.runner._options import options_from_manifest

SECRET_URL = "https://user:hunter2-long-password@llm.example.com/v1"
STORED = "https://user:[REDACTED]@llm.example.com/v1"


def manifest() -> dict[str, object]:
    return {"model_override": "openai/gpt", "api_base_override": STORED, "runs": 2}


def test_resume_without_the_endpoint_asks_for_it() -> None:
    with pytest.raises(UsageError, match="whose secret is not stored") as info:
        options_from_manifest(manifest(), BatchOptions())
    assert "--api-base" in (info.value.hint or "")


def test_resume_with_the_same_endpoint_uses_it() -> None:
    options = options_from_manifest(
        manifest(), BatchOptions(model="openai/gpt", api_base=SECRET_URL)
    )
    assert options.api_base == SECRET_URL


def test_a_different_endpoint_is_refused_without_printing_its_secret() -> None:
    other = "https://user:other-long-password@llm.example.com/v2"
    with pytest.raises(SuiteError) as info:
        options_from_manifest(manifest(), BatchOptions(model="openai/gpt", api_base=other))
    assert "other-long-password" not in str(info.value)
    assert "differs" in str(info.value)
