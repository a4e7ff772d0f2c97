"""Tools: OpenAI schemas from Python signatures, validated and coerced calls."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field

from trajguard.agent.tools import Tool, ToolArgumentError, format_result, tool


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression.

    Longer explanation that is not the description.

    Args:
        expression: the expression, e.g. 17 * 23.
    """
    return expression


class Place(BaseModel):
    city: str
    country: str | None = None


class Forecast(BaseModel):
    place: Place
    days: int = 1
    unit: Literal["c", "f"] = "c"


def _keys(node, found=None):
    found = set() if found is None else found
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key != "properties":
                _keys(value, found)
            else:
                for sub in value.values():
                    _keys(sub, found)
    elif isinstance(node, list):
        for item in node:
            _keys(item, found)
    return found


def test_schema_and_description_come_from_the_signature_and_docstring():
    made = tool(calculator)
    assert made.definition() == {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression.",
            "parameters": {
                "type": "object",
                "properties": {
                    "expression": {"type": "string", "description": "the expression, e.g. 17 * 23."}
                },
                "required": ["expression"],
                "additionalProperties": False,
            },
        },
    }
    assert made.signature() == "calculator(expression: string)"


def test_every_supported_hint_has_a_schema():
    def search(
        query: str,
        limit: int = 5,
        score: float = 0.5,
        exact: bool = False,
        tags: list[str] | None = None,
        order: Literal["new", "old"] = "new",
        note: Annotated[str, Field(description="free text")] = "",
    ) -> list[str]:
        """Search."""
        return []

    params = tool(search).parameters
    props = params["properties"]
    assert params["required"] == ["query"]
    assert props["limit"] == {"type": "integer", "default": 5}
    assert props["score"] == {"type": "number", "default": 0.5}
    assert props["exact"] == {"type": "boolean", "default": False}
    assert props["tags"]["anyOf"] == [
        {"type": "array", "items": {"type": "string"}},
        {"type": "null"},
    ]
    assert props["order"] == {"type": "string", "enum": ["new", "old"], "default": "new"}
    assert props["note"]["description"] == "free text"
    assert tool(search).signature() == (
        "search(query: string, limit: integer (optional), score: number (optional), "
        "exact: boolean (optional), tags: list of string | null (optional), order: new | old "
        "(optional), note: string (optional))"
    )


def test_nested_models_are_inlined_without_titles():
    def forecast(request: Forecast, verbose: bool = False) -> str:
        """Forecast."""
        return ""

    params = tool(forecast).parameters
    keys = _keys(params)
    assert "$ref" not in keys
    assert "$defs" not in keys
    assert "title" not in keys
    assert params["properties"]["request"]["properties"]["place"]["required"] == ["city"]


def test_a_property_named_title_is_kept():
    def book(title: str) -> str:
        """Add a book."""
        return title

    assert list(tool(book).parameters["properties"]) == ["title"]


async def test_a_single_model_parameter_takes_the_models_fields_as_arguments():
    seen = []

    def forecast(request: Forecast) -> str:
        """Forecast the weather."""
        seen.append(request)
        return "sunny"

    made = tool(forecast)
    assert set(made.parameters["properties"]) == {"place", "days", "unit"}
    assert made.parameters["additionalProperties"] is False
    assert await made.call({"place": {"city": "Oslo"}, "days": "3"}) == "sunny"
    assert type(seen[0]) is Forecast
    assert seen[0] == Forecast(place=Place(city="Oslo"), days=3)
    with pytest.raises(ToolArgumentError, match="unexpected argument 'request'"):
        made.validate({"request": {}, "place": {"city": "x"}})


def test_arguments_are_coerced():
    def f(n: int, x: float, s: str, b: bool) -> None:
        """F."""

    assert tool(f).validate({"n": "17", "x": "2.5", "s": 17, "b": "true"}) == {
        "n": 17,
        "x": 2.5,
        "s": "17",
        "b": True,
    }


def test_invalid_arguments_say_what_is_wrong_by_name():
    made = tool(calculator)
    with pytest.raises(ToolArgumentError) as missing:
        made.validate({"expr": "1+1"})
    assert str(missing.value) == (
        "invalid arguments for calculator: missing required argument 'expression'; "
        "unexpected argument 'expr'"
    )

    def f(n: int, order: Literal["a", "b"] = "a") -> None:
        """F."""

    with pytest.raises(ToolArgumentError) as wrong:
        tool(f).validate({"n": "seventeen", "order": "z"})
    text = str(wrong.value)
    assert text.startswith("invalid arguments for f: n: Input should be a valid integer")
    assert "(got 'seventeen')" in text
    assert "order: Input should be 'a' or 'b' (got 'z')" in text


async def test_sync_tools_run_in_a_thread_and_async_tools_are_awaited():
    threads = []

    def sync_tool(x: int) -> int:
        """Sync."""
        threads.append(threading.get_ident())
        return x * 2

    async def async_tool(x: int) -> int:
        """Async."""
        await asyncio.sleep(0)
        return x * 3

    assert await tool(sync_tool).call({"x": "2"}) == 4
    assert threads[0] != threading.get_ident()
    assert await tool(async_tool).call({"x": 2}) == 6


async def test_a_tool_that_raises_propagates_its_exception():
    def broken(x: int) -> int:
        """Broken."""
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await tool(broken).call({"x": 1})


def test_name_and_description_can_be_overridden_and_tools_pass_through():
    made = tool(calculator, name="calc", description="Does maths.")
    assert (made.name, made.description) == ("calc", "Does maths.")
    assert tool(made) is made
    assert isinstance(made, Tool)
    assert tool(lambda: None, name="noop").description == ""


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "<lambda>"])
def test_invalid_names_are_rejected(name):
    with pytest.raises(ValueError, match="tool name"):
        tool(calculator, name=name) if name != "<lambda>" else tool(lambda: None)


def test_variadic_parameters_are_rejected():
    def f(*args: int) -> None:
        """F."""

    with pytest.raises(TypeError, match="named parameter"):
        tool(f)


def test_results_become_text():
    assert format_result("391") == "391"
    assert format_result(391) == "391"
    assert format_result({"temp": 21, "unit": "c"}) == '{"temp": 21, "unit": "c"}'
    assert format_result(Place(city="Oslo")) == '{"city":"Oslo","country":null}'
    assert format_result(None) == "null"
