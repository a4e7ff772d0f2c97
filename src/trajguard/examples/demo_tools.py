"""Tools of the demo suite: lookups over bundled data and safe arithmetic.

The module is deliberately small and stable: a tool's signature and docstring become part of
the agent's prompt, so anything added here changes what the model sees.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

_COUNTRIES = {
    "australia": {"capital": "Canberra", "population": 26_000_000, "currency": "AUD"},
    "brazil": {"capital": "Brasilia", "population": 203_000_000, "currency": "BRL"},
    "canada": {"capital": "Ottawa", "population": 40_000_000, "currency": "CAD"},
    "france": {"capital": "Paris", "population": 68_000_000, "currency": "EUR"},
    "japan": {"capital": "Tokyo", "population": 124_000_000, "currency": "JPY"},
    "kenya": {"capital": "Nairobi", "population": 55_000_000, "currency": "KES"},
}

_WEATHER = {
    "paris": "light rain, 12 °C",
    "tokyo": "sunny, 18 °C",
    "nairobi": "cloudy, 21 °C",
    "ottawa": "snow, -4 °C",
}

_OPERATORS: dict[type[ast.AST], Callable[..., Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 100:
            raise ValueError("exponent too large")
        return float(_OPERATORS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return float(_OPERATORS[type(node.op)](_evaluate(node.operand)))
    raise ValueError(f"unsupported expression element: {type(node).__name__}")


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23 or (4 + 5) / 3.

    Args:
        expression: numbers with + - * / // % ** and parentheses.
    """
    value = _evaluate(ast.parse(expression.replace("x", "*").replace("×", "*"), mode="eval"))
    return f"{value:g}" if value != int(value) else str(int(value))


def lookup_country(country: str) -> str:
    """Look up a country's capital, population and currency.

    Args:
        country: the country's English name, e.g. France.
    """
    facts = _COUNTRIES.get(country.strip().lower())
    if facts is None:
        known = ", ".join(name.title() for name in _COUNTRIES)
        raise KeyError(f"unknown country {country!r}; known: {known}")
    return (
        f"{country.strip().title()}: capital {facts['capital']}, population "
        f"{facts['population']}, currency {facts['currency']}"
    )


def get_weather(city: str) -> str:
    """Get today's weather for a city.

    Args:
        city: the city's name, e.g. Paris.
    """
    report = _WEATHER.get(city.strip().lower())
    if report is None:
        raise KeyError(f"no weather station for {city!r}")
    return f"{city.strip().title()}: {report}"
