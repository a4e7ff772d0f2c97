"""Fixtures shared by the capture tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import openai
import pytest


@pytest.fixture
def client_for() -> Iterator[Callable[..., openai.OpenAI]]:
    """OpenAI clients closed at teardown (an unclosed one warns whenever gc finds it)."""
    made: list[openai.OpenAI] = []

    def make(base_url: str, *, max_retries: int = 0) -> openai.OpenAI:
        made.append(
            openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=max_retries, timeout=20)
        )
        return made[-1]

    yield make
    for client in made:
        client.close()
