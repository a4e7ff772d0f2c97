"""Tools that take the run's state: a keyword-only ``state`` parameter is handed the state and
never shown to the model; a positional parameter named ``state`` stays a model argument."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.agent.tools import ToolArgumentError, tool
from trajguard.capture import LLMResponse, Message, ToolCallRequest, Usage


def book(flight: str, *, state: dict[str, Any]) -> str:
    """Book a seat on a flight.

    Args:
        flight: the flight number.
    """
    state.setdefault("bookings", []).append(flight)
    return f"booked {flight}"


def weather(city: str, state: str) -> str:
    """The weather of a city in a US state."""
    return f"{city}, {state}: sunny"


class Refund(BaseModel):
    order: str
    amount: float


async def refund(request: Refund, *, state: dict[str, Any]) -> str:
    """Refund an order."""
    state["refunded"] = state.get("refunded", 0) + request.amount
    return "refunded"


def test_the_state_parameter_is_not_in_the_schema() -> None:
    made = tool(book)
    assert made.takes_state
    assert made.parameters["properties"] == {
        "flight": {"type": "string", "description": "the flight number."}
    }
    assert made.parameters["required"] == ["flight"]
    assert "state" not in made.signature()


def test_a_positional_state_parameter_is_an_argument() -> None:
    made = tool(weather)
    assert not made.takes_state
    assert set(made.parameters["properties"]) == {"city", "state"}


async def test_the_call_gets_the_state_and_changes_it_in_place() -> None:
    shared: dict[str, Any] = {"bookings": ["AF1"]}
    assert await tool(book).call({"flight": "AF12"}, state=shared) == "booked AF12"
    assert shared == {"bookings": ["AF1", "AF12"]}
    assert await tool(refund).call({"order": "o1", "amount": "20"}, state=shared) == "refunded"
    assert shared["refunded"] == 20.0
    assert set(tool(refund).parameters["properties"]) == {"order", "amount"}


async def test_without_a_state_a_tool_gets_an_empty_one_of_its_own() -> None:
    assert await tool(book).call({"flight": "AF12"}) == "booked AF12"


def test_the_model_cannot_set_the_state() -> None:
    with pytest.raises(ToolArgumentError, match="unexpected argument 'state'"):
        tool(book).validate({"flight": "AF12", "state": {"bookings": []}})


class _Calls:
    """Calls ``book`` twice, then answers."""

    model_name = "fake/scripted"

    async def complete(self, messages: list[Message], **_: Any) -> LLMResponse:
        done = sum(1 for m in messages if m["role"] == "tool")
        if done == 2:
            return LLMResponse(content="booked both", usage=Usage(10, 2))
        call = ToolCallRequest(f"c{done}", "book", f'{{"flight": "F{done}"}}')
        return LLMResponse(content=None, tool_calls=(call,), usage=Usage(10, 2))


async def test_the_reference_agent_shares_its_configured_state_between_its_tool_calls() -> None:
    shared: dict[str, Any] = {"bookings": []}
    agent = ReferenceAgent(AgentConfig(tools=[book], mode="native", state=shared))
    result = await agent.run(_Calls(), "book two")  # type: ignore[arg-type]
    assert result.final_answer == "booked both"
    assert shared == {"bookings": ["F0", "F1"]}
    fresh = ReferenceAgent(AgentConfig(tools=[book], mode="native"))
    assert (await fresh.run(_Calls(), "book two")).status == "ok"  # type: ignore[arg-type]
