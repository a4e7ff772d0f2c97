"""Python functions as model tools: a JSON schema from the signature, validated calls.

:func:`tool` turns a plain function (sync or async) into a :class:`Tool`. The parameters'
type hints (``int``, ``float``, ``str``, ``bool``, ``list[...]``, ``Literal``, optionals,
pydantic models, ``Annotated[..., Field(description=...)]``) become an OpenAI-style JSON schema;
the docstring's first line is the description and its Google-style ``Args:`` entries describe the
parameters. A function whose only parameter is a pydantic model takes that model's fields as its
arguments. Arguments from the model are validated and coerced (``"17"`` to ``17``, ``17`` to
``"17"``); what fails is reported as text the model can act on.

A keyword-only parameter named ``state`` (``def book(flight: str, *, state: dict) -> str``) is
not an argument the model sees: it receives the run's shared state (the scenario's ``state:``,
a copy of its own for every run), which the tool may read and change.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from trajguard._user_code import in_thread

__all__ = ["STATE_PARAMETER", "Tool", "ToolArgumentError", "format_result", "tool"]

STATE_PARAMETER = "state"
"""The keyword-only parameter through which a tool receives the run's shared state."""

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ARG_LINE = re.compile(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.+)$")


class ToolArgumentError(ValueError):
    """Arguments the tool cannot be called with; ``str()`` is written for the model to read."""


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


@dataclass(frozen=True)
class Tool:
    """A callable the agent can offer to a model.

    Attributes:
        name: the function name the model calls.
        description: what the tool does, for the model.
        parameters: the JSON schema of the arguments object.
        function: the Python callable (sync or async).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any] = field(repr=False)
    _model: type[BaseModel] = field(repr=False)
    _unpack: tuple[str, type[BaseModel]] | None = field(default=None, repr=False)
    takes_state: bool = field(default=False, repr=False)
    """The function declares the keyword-only ``state`` parameter."""

    def definition(self) -> dict[str, Any]:
        """The OpenAI-style tool definition (``{"type": "function", "function": {...}}``)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def signature(self) -> str:
        """A one-line rendering for prompts: ``calculator(expression: string)``."""
        props = self.parameters.get("properties", {})
        required = set(self.parameters.get("required", ()))
        parts = [
            f"{name}: {_type_text(schema)}" + ("" if name in required else " (optional)")
            for name, schema in props.items()
        ]
        return f"{self.name}({', '.join(parts)})"

    def validate(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and coerce arguments into keyword arguments for the function.

        Raises:
            ToolArgumentError: the arguments do not fit the schema; the message lists each
                problem by argument name.
        """
        try:
            parsed = self._model.model_validate(dict(arguments))
        except ValidationError as exc:
            raise ToolArgumentError(
                f"invalid arguments for {self.name}: {_describe(exc)}"
            ) from None
        if self._unpack is not None:
            param, model = self._unpack
            values = {key: getattr(parsed, key) for key in type(parsed).model_fields}
            # Already validated: build the caller's own class, not the stricter subclass.
            return {param: model.model_construct(parsed.model_fields_set, **values)}
        return {name: getattr(parsed, name) for name in type(parsed).model_fields}

    async def call(self, arguments: Mapping[str, Any], *, state: Any = None) -> Any:
        """Validate the arguments and run the function (a sync function in a daemon thread of
        its own, :func:`trajguard._user_code.in_thread`: a tool that hangs holds neither the
        other runs nor the process's exit). A tool that takes ``state`` is given ``state``
        (a new empty dict when ``None``).

        Raises:
            ToolArgumentError: invalid arguments.
            UserCodeError: a sync tool raised ``SystemExit``, ``KeyboardInterrupt`` or
                ``GeneratorExit``.
            Exception: whatever else the function raises.
        """
        kwargs = self.validate(arguments)
        if self.takes_state:
            kwargs[STATE_PARAMETER] = {} if state is None else state
        if inspect.iscoroutinefunction(self.function):
            return await self.function(**kwargs)
        call = functools.partial(self.function, **kwargs)
        result = await in_thread(call, what=f"tool {self.name}", name=f"trajguard-tool-{self.name}")
        if inspect.isawaitable(result):
            return await result
        return result


def tool(
    function: Callable[..., Any] | Tool,
    *,
    name: str | None = None,
    description: str | None = None,
) -> Tool:
    """Make a :class:`Tool` from a function (a :class:`Tool` is returned as it is).

    Args:
        function: a sync or async callable with type-hinted parameters.
        name: the tool name; the function's ``__name__`` by default.
        description: the description; the docstring's first line by default.

    Raises:
        TypeError: the function takes ``*args``/``**kwargs`` or positional-only parameters.
        ValueError: the name is not a valid tool name (letters, digits, ``_``, ``-``; 1-64).
    """
    if isinstance(function, Tool):
        return function
    tool_name = name if name is not None else str(getattr(function, "__name__", ""))
    if not _NAME.match(tool_name):
        raise ValueError(f"tool name {tool_name!r} must match {_NAME.pattern}")
    doc = inspect.getdoc(function) or ""
    summary = description if description is not None else (doc.strip().splitlines() or [""])[0]
    model, unpack = _arguments_model(function, tool_name, _arg_docs(doc))
    return Tool(
        name=tool_name,
        description=summary,
        parameters=_clean_schema(model.model_json_schema()),
        function=function,
        _model=model,
        _unpack=unpack,
        takes_state=_takes_state(inspect.signature(function)),
    )


def format_result(value: Any) -> str:
    """A tool's return value as the text the model sees (strings as they are, else JSON).

    Raises:
        TypeError: a generator or an iterator (its items are not the result: return a list),
            or a value JSON cannot hold.
        ValueError: a value that contains itself (a cycle).
        RecursionError: a value nested too deep to write.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if inspect.isgenerator(value) or inspect.isasyncgen(value) or isinstance(value, Iterator):
        raise TypeError(
            f"the tool returned a {type(value).__name__}, not a value: return a list of its "
            "items, or a string"
        )
    return json.dumps(value, ensure_ascii=False, default=str)


def _arguments_model(
    function: Callable[..., Any], name: str, docs: Mapping[str, str]
) -> tuple[type[BaseModel], tuple[str, type[BaseModel]] | None]:
    signature = inspect.signature(function)
    hints = get_type_hints(function, include_extras=True)
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if _is_state(param):
            continue
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise TypeError(
                f"tool {name}: parameter {param.name!r} must be a named parameter "
                "(no *args, **kwargs or positional-only)"
            )
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        info = Field(default, description=docs[param.name]) if param.name in docs else default
        fields[param.name] = (annotation, info)
    if len(fields) == 1:
        param_name, (only, _) = next(iter(fields.items()))
        if isinstance(only, type) and issubclass(only, BaseModel):
            # The model's own settings win; by default a weak model's stray keys are reported.
            config = {**_Arguments.model_config, **only.model_config}
            strict = type(f"{name}_arguments", (only,), {"model_config": config})
            return strict, (param_name, only)
    return create_model(f"{name}_arguments", __base__=_Arguments, **fields), None


def _is_state(param: inspect.Parameter) -> bool:
    return param.name == STATE_PARAMETER and param.kind == param.KEYWORD_ONLY


def _takes_state(signature: inspect.Signature) -> bool:
    return any(_is_state(param) for param in signature.parameters.values())


def _arg_docs(doc: str) -> dict[str, str]:
    docs: dict[str, str] = {}
    in_args = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
        elif in_args and stripped and not line.startswith(" "):
            in_args = False
        elif in_args and (match := _ARG_LINE.match(line)):
            docs[match.group(1)] = match.group(2).strip()
    return docs


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline ``$defs`` and drop ``title`` keywords: smaller, and simpler for grammar samplers."""
    defs = schema.pop("$defs", {})

    def walk(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref.removeprefix("#/$defs/")
            if key in seen:
                raise TypeError(f"recursive model {key} cannot be a tool parameter")
            return walk(
                {**defs[key], **{k: v for k, v in node.items() if k != "$ref"}}, seen | {key}
            )
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {prop: walk(sub, seen) for prop, sub in value.items()}
            else:
                out[key] = walk(value, seen)
        return out

    cleaned: dict[str, Any] = walk(schema, frozenset())
    cleaned.setdefault("properties", {})
    return cleaned


def _type_text(schema: Mapping[str, Any]) -> str:
    # Values unquoted: prompts avoid quotes (llama.cpp's tool template HTML-escapes them).
    if "enum" in schema:
        return " | ".join(_plain(v) for v in schema["enum"])
    if "const" in schema:
        return _plain(schema["const"])
    options = schema.get("anyOf")
    if isinstance(options, list):
        return " | ".join(_type_text(option) for option in options)
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type_text(schema.get('items', {}))}"
    return str(kind)


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _describe(exc: ValidationError) -> str:
    problems: list[str] = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        kind = error["type"]
        if kind == "missing":
            problems.append(f"missing required argument {where!r}")
        elif kind == "extra_forbidden":
            problems.append(f"unexpected argument {where!r}")
        else:
            problems.append(f"{where}: {error['msg']} (got {error['input']!r:.60})")
    return "; ".join(problems)
