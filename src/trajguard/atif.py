"""ATIF (Agent Trajectory Interchange Format) v1.0 to v1.7 as pydantic models.

Reading accepts every v1.x release up to v1.7; writing always produces ``ATIF-v1.7``. Fields the
schema does not know are kept (``extra="allow"``) and listed by :func:`unknown_fields`, so loading
never drops anything silently. The structural schema lives here; the normative rules N1 to N9
that it cannot express live in :mod:`trajguard.normative`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from trajguard.errors import InvalidTrajectory, UnsupportedSchemaVersion

__all__ = [
    "ATIF_VERSION",
    "MAX_NESTING",
    "SUPPORTED_VERSIONS",
    "Agent",
    "ContentPart",
    "FinalMetrics",
    "ImagePart",
    "Metrics",
    "Observation",
    "ObservationResult",
    "Step",
    "SubagentRef",
    "TextPart",
    "ToolCall",
    "Trajectory",
    "dump_trajectory",
    "load_trajectory",
    "trajectory_to_dict",
    "unknown_fields",
]

ATIF_VERSION = "ATIF-v1.7"
SUPPORTED_VERSIONS = tuple(f"ATIF-v1.{minor}" for minor in range(8))
MAX_NESTING = 200
"""Deepest JSON nesting (objects and arrays) a trajectory may have.

pydantic stops serialising at about 255 levels, so a deeper document would load but then fail in
normalize and shape; it is rejected when loaded instead, with the JSON path where it gets too deep.
"""
_PATH_SHOWN = 12  # segments of a too-deep path shown before "...": the rest repeats
_VERSION_RE = re.compile(r"^ATIF-v(\d+)\.(\d+)$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class TextPart(_Model):
    """A text content part (v1.6+)."""

    type: Literal["text"]
    text: str


class ImageSource(_Model):
    """Where an image content part's bytes live."""

    media_type: str
    path: str


class ImagePart(_Model):
    """An image content part (v1.6+)."""

    type: Literal["image"]
    source: ImageSource


ContentPart = Annotated[TextPart | ImagePart, Field(discriminator="type")]
Content = str | list[ContentPart]


class ToolCall(_Model):
    """One tool call of an agent step."""

    tool_call_id: str
    """Joins the observation result that answers this call (rule N2)."""
    function_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    """The call's arguments as a JSON object (may be empty)."""
    extra: dict[str, Any] | None = None


class SubagentRef(_Model):
    """A pointer from an observation to a subagent trajectory."""

    trajectory_id: str | None = None
    """Resolves to an embedded trajectory of an ancestor (rule N9)."""
    trajectory_path: str | None = None
    session_id: str | None = None
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _needs_a_target(self) -> SubagentRef:
        if self.trajectory_id is None and self.trajectory_path is None:
            raise ValueError("a subagent_trajectory_ref needs trajectory_id or trajectory_path")
        return self


class ObservationResult(_Model):
    """The result of one tool call (or a subagent run)."""

    source_call_id: str | None = None
    """The tool_call_id this result answers, in the same step (rule N2)."""
    content: Content | None = None
    subagent_trajectory_ref: list[SubagentRef] | None = None
    extra: dict[str, Any] | None = None


class Observation(_Model):
    """The results of a step's tool calls."""

    results: list[ObservationResult] = Field(default_factory=list)


class Metrics(_Model):
    """Token usage and cost of one agent step."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    """Volatile: live pricing moves; normalisation removes it."""
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[Any] | None = None
    extra: dict[str, Any] | None = None


class FinalMetrics(_Model):
    """Aggregates over the whole run."""

    total_prompt_tokens: int | None = None
    total_completion_tokens: int | None = None
    total_cached_tokens: int | None = None
    total_cost_usd: float | None = None
    total_steps: int | None = None
    extra: dict[str, Any] | None = None


class Step(_Model):
    """One step of a trajectory: a system prompt, a user turn, or an agent turn."""

    step_id: int
    """Sequential from 1 with no gaps (rule N1); some producers write it as a string."""
    timestamp: str | None = None
    """ISO 8601 (rule N6). Volatile."""
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    reasoning_effort: str | float | None = None
    message: Content | None = None
    """Required by rule N7 (may be the empty string); checked by the validator."""
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    observation: Observation | None = None
    metrics: Metrics | None = None
    llm_call_count: int | None = None
    """1 for a normal agent step, >1 aggregated, 0 for a deterministic dispatch (rule N5)."""
    is_copied_context: bool | None = None
    extra: dict[str, Any] | None = None


class Agent(_Model):
    """The agent that produced the run."""

    name: str
    version: str
    model_name: str | None = None
    tool_definitions: list[dict[str, Any]] | None = None
    extra: dict[str, Any] | None = None


class Trajectory(_Model):
    """One agent run: the root of an ATIF document, or an embedded subagent run."""

    schema_version: str = ATIF_VERSION
    session_id: str | None = None
    trajectory_id: str | None = None
    agent: Agent
    steps: list[Step]
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    continued_trajectory_ref: str | None = None
    extra: dict[str, Any] | None = None
    subagent_trajectories: list[Trajectory] | None = None


def _json_path(loc: tuple[int | str, ...]) -> str:
    path = "$"
    tag_next = False
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in {"str", "list[tagged-union[TextPart,ImagePart]]", "function-after"}:
            # pydantic's union-branch labels are not part of the document; inside a tagged
            # union the loc also names the discriminator value ("text"), skipped below
            tag_next = "tagged-union[" in part
        elif tag_next:
            tag_next = False
        else:
            path += f".{part}"
    return path


def _check_version(data: Mapping[str, Any], file: str | None) -> None:
    version = data.get("schema_version")
    if version is None:
        raise InvalidTrajectory(
            "not an ATIF trajectory: the root object has no schema_version",
            file=file,
            path="$.schema_version",
            hint='an ATIF file starts with {"schema_version": "ATIF-v1.7", "agent": ..., ...}',
        )
    match = _VERSION_RE.match(version) if isinstance(version, str) else None
    if match is None or version not in SUPPORTED_VERSIONS:
        raise UnsupportedSchemaVersion(
            f"schema_version {version!r} is not supported: trajguard reads "
            f"{SUPPORTED_VERSIONS[0]} to {SUPPORTED_VERSIONS[-1]}",
            file=file,
            path="$.schema_version",
            hint="export the trajectory as ATIF v1.x, or upgrade trajguard if a newer "
            "release supports this version",
        )


def _read_source(source: str | Path | bytes) -> tuple[Any, str | None]:
    if isinstance(source, bytes):
        text, file = source.decode("utf-8", errors="replace"), None
    elif isinstance(source, str) and source.lstrip().startswith(("{", "[")):
        text, file = source, None
    else:
        file = str(source)
        try:
            text = Path(source).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InvalidTrajectory(
                "file not found", file=file, hint="check the path (relative to the cwd)"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidTrajectory(f"cannot read file: {exc}", file=file) from None
    try:
        return json.loads(text), file
    except json.JSONDecodeError as exc:
        raise InvalidTrajectory(
            f"not valid JSON: {exc.msg} (column {exc.colno})",
            file=file or "<string>",
            line=exc.lineno,
            hint="an ATIF trajectory is one JSON object",
        ) from None
    except RecursionError:
        raise _too_deep(file or "<string>", "$") from None


# A JSON path as (last segment, parent chain): shared by siblings, joined only on error.
_Chain = tuple[str, Any] | None


def _check_nesting(data: Mapping[str, Any], file: str | None) -> None:
    """Reject a document nested deeper than :data:`MAX_NESTING` (iteratively: no recursion)."""
    stack: list[tuple[Any, int, _Chain]] = [(data, 1, None)]
    while stack:
        value, depth, chain = stack.pop()
        if depth > MAX_NESTING:
            raise _too_deep(file, _chain_path(chain))
        if isinstance(value, Mapping):
            items: Iterator[tuple[str, Any]] = ((f".{k}", v) for k, v in value.items())
        else:
            items = ((f"[{i}]", v) for i, v in enumerate(value))
        stack.extend(
            (item, depth + 1, (key, chain))
            for key, item in items
            if isinstance(item, Mapping | list | tuple)
        )


def _chain_path(chain: _Chain) -> str:
    parts: list[str] = []
    while chain is not None:
        key, chain = chain
        parts.append(key)
    parts.reverse()
    shown = "".join(parts[:_PATH_SHOWN])
    return f"${shown}..." if len(parts) > _PATH_SHOWN else f"${shown}"


def _too_deep(file: str | None, path: str) -> InvalidTrajectory:
    return InvalidTrajectory(
        f"nested more than {MAX_NESTING} levels deep",
        file=file,
        path=path,
        hint="trajguard reads at most that depth of objects and arrays; flatten or truncate "
        "the deep value (often a tool's arguments or output)",
    )


def load_trajectory(
    source: str | Path | bytes | Mapping[str, Any] | Trajectory,
) -> Trajectory:
    """Load an ATIF v1.0 to v1.7 trajectory from a path, a JSON string, bytes or a dict.

    A ``str`` that starts with ``{`` or ``[`` is JSON text; pass a :class:`~pathlib.Path` to
    read a file whose name starts that way. Unknown fields are kept on the models;
    :func:`unknown_fields` lists them.

    Raises:
        InvalidTrajectory: not JSON, not ATIF, nested deeper than :data:`MAX_NESTING`, or a
            structural error; the message names the file and the JSON path of each problem.
        UnsupportedSchemaVersion: a schema_version outside v1.0 to v1.7.
    """
    if isinstance(source, Trajectory):
        return source
    file: str | None = None
    data: Any
    if isinstance(source, Mapping):
        data = source
    else:
        data, file = _read_source(source)
    if not isinstance(data, Mapping):
        raise InvalidTrajectory(
            f"not an ATIF trajectory: the top level is a JSON {type(data).__name__}, "
            "expected an object",
            file=file,
            path="$",
        )
    _check_version(data, file)
    _check_nesting(data, file)
    try:
        return Trajectory.model_validate(data)
    except ValidationError as exc:
        raise _structural_error(exc, file) from None


def _structural_error(exc: ValidationError, file: str | None) -> InvalidTrajectory:
    problems = []
    for err in exc.errors(include_url=False):
        got = err.get("input")
        shown = "" if isinstance(got, dict | list) else f" (got {got!r:.60})"
        problems.append((_json_path(err["loc"]), f"{err['msg']}{shown}"))
    first_path, first_message = problems[0]
    details = [f"also {path}: {message}" for path, message in problems[1:8]]
    if len(problems) > 8:
        details.append(f"... and {len(problems) - 8} more")
    return InvalidTrajectory(
        f"not valid ATIF: {first_message}",
        file=file,
        path=first_path,
        details=details,
        hint="fix the field(s) above; the format is described in ATIF's RFC (v1.7)",
    )


def trajectory_to_dict(trajectory: Trajectory) -> dict[str, Any]:
    """The trajectory as a JSON-ready dict, written as ATIF v1.7.

    Fields the producer set (including unknown ones) are kept; unset optional fields are left out.
    """
    data = trajectory.model_dump(mode="json", exclude_unset=True)
    _stamp_version(data)
    return data


def _stamp_version(data: dict[str, Any]) -> None:
    data["schema_version"] = ATIF_VERSION
    for child in data.get("subagent_trajectories") or ():
        _stamp_version(child)


def dump_trajectory(trajectory: Trajectory, *, indent: int | None = 2) -> str:
    """The trajectory as ATIF v1.7 JSON text."""
    return json.dumps(trajectory_to_dict(trajectory), indent=indent, ensure_ascii=False)


def unknown_fields(trajectory: Trajectory) -> list[str]:
    """JSON paths of every field the ATIF schema does not define (kept, not dropped)."""
    return list(_walk_unknown(trajectory, "$"))


def _walk_unknown(value: Any, path: str) -> Iterator[str]:
    if isinstance(value, BaseModel):
        for key in value.model_extra or {}:
            yield f"{path}.{key}"
        for name in type(value).model_fields:
            if name == "extra":
                continue  # producer-specific by design, not unknown
            yield from _walk_unknown(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk_unknown(item, f"{path}[{index}]")
