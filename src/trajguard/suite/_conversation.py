"""Conversations: a scenario whose user speaks more than once.

A scenario gives exactly one of ``input`` (one user message), ``turns`` (the user's messages,
scripted) or ``user`` (a user played by a model)::

    turns:
      - I want a refund.
      - say: My order number is 1234.
        criteria:                        # judged on the conversation up to this turn's answer
          - final_output_contains: refund
    user:
      persona: a busy customer who answers briefly
      goal: get a refund for order 1234
      facts: {order number: "1234", reason: arrived broken}   # known to the user only
      opening: Hi, I need help with an order.   # its first message (else the model writes it)
      user_model: local/smollm2                 # the default: the embedded model
      max_turns: 6                              # the most user messages
      done_token: "###STOP###"                  # the user says it when it is done

The agent answers each user message in the same episode (its memory is the conversation so
far); the run is one trajectory holding every user and agent step.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from trajguard.agent.users import DONE_TOKEN
from trajguard.local_model import MODEL_STRING
from trajguard.suite._criteria import Criterion, parse_criterion
from trajguard.suite._settings import Strict

__all__ = [
    "ScriptedTurn",
    "SimulatedUserSettings",
    "check_user_side",
    "first_message",
    "placed_criteria",
]


class ScriptedTurn(Strict):
    """One scripted user message, with criteria judged on the conversation up to its answer."""

    say: str = Field(min_length=1)
    criteria: list[Criterion] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _a_string_is_what_to_say(cls, raw: Any) -> Any:
        return {"say": raw} if isinstance(raw, str) else raw

    @field_validator("criteria", mode="before")
    @classmethod
    def _tag_criteria(cls, raw: Any) -> Any:
        if not isinstance(raw, list):
            return raw
        return [parse_criterion(item) for item in raw]


class SimulatedUserSettings(Strict):
    """A user played by a model: who it is, what it wants, what only it knows."""

    goal: str = Field(min_length=1)
    persona: str = ""
    facts: dict[str, Any] | list[str] | str = Field(default_factory=dict)
    """What the user knows and tells the agent only when asked."""
    opening: str | None = Field(default=None, min_length=1)
    """The user's first message, as written; without it the user model writes it."""
    user_model: str = MODEL_STRING
    api_base: str | None = None
    max_turns: int = Field(default=6, ge=1, le=100)
    """The most user messages in a conversation (the opening included)."""
    done_token: str = Field(default=DONE_TOKEN, min_length=1)
    temperature: float | None = Field(default=0.7, ge=0.0, le=2.0)
    max_tokens: int = Field(default=96, ge=1, le=4096)

    def facts_text(self) -> str:
        """The hidden facts as lines of the user model's prompt."""
        facts = self.facts
        if isinstance(facts, str):
            return facts
        if isinstance(facts, Mapping):
            return "\n".join(f"- {key}: {value}" for key, value in facts.items())
        return "\n".join(f"- {fact}" for fact in facts)


def check_user_side(input: str | None, scenario: Mapping[str, Any]) -> str | None:
    """A scenario's ``input``, once its other fields (``agent``, ``turns``, ``user``) are
    validated: refused unless exactly one of the three is given, and for a conversation of a
    command agent without a wire endpoint to ask for the next message."""
    given = [n for n in ("turns", "user") if scenario.get(n) is not None]
    if input is None and not given:
        # a missing field (its line, "add the field"): turns and user are the alternatives
        raise PydanticCustomError("missing", "give input, turns or user")
    if input is not None:
        given.insert(0, "input")
    if len(given) != 1:
        raise ValueError(
            "give exactly one of input (one message), turns (scripted messages) or user "
            f"(a simulated user); got {' and '.join(given)}"
        )
    if given[0] != "input" and getattr(scenario.get("agent"), "uses_model", True) is False:
        raise ValueError(
            f"a command agent with uses_model: false cannot hold a conversation ({given[0]}:): "
            "it asks for each next user message at its run's endpoint, which it gets only "
            "with uses_model: true"
        )
    return input


def placed_criteria(scenario: Any) -> Iterator[tuple[tuple[str | int, ...], Criterion]]:
    """Every criterion of a (resolved) scenario with where it is written: ``("pass", i)``,
    then each turn's ``("turns", t, "criteria", i)``."""
    for index, criterion in enumerate(scenario.pass_criteria):
        yield ("pass", index), criterion
    for t_index, turn in enumerate(getattr(scenario, "turns", None) or ()):
        for index, criterion in enumerate(turn.criteria):
            yield ("turns", t_index, "criteria", index), criterion


def first_message(
    input: str | None, turns: list[ScriptedTurn] | None, user: SimulatedUserSettings | None
) -> str:
    """A scenario's input: its one message, its first scripted turn, or the simulated user's
    opening (empty when the user model writes it)."""
    if turns:
        return turns[0].say
    if user is not None:
        return user.opening or ""
    return input or ""
