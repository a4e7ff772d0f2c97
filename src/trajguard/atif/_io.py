"""Reading and writing ATIF documents: JSON in, models out, and back.

Reading accepts every release from v1.0 to v1.8 and checks the structure; writing always produces
the current version (:data:`~trajguard.atif.ATIF_VERSION`). Fields the schema does not define are
kept, listed by :func:`unknown_fields`, and announced by one :class:`UnknownFieldsWarning` per
loaded document: Harbor refuses them ("custom data goes in ``extra``"), so they are worth
knowing about, but dropping them silently would lose the producer's data.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from trajguard._json import MAX_DOCUMENT_BYTES, read_regular_bytes
from trajguard.atif._models import ATIF_VERSION, SUPPORTED_VERSIONS, Trajectory
from trajguard.errors import InvalidTrajectory, UnsupportedSchemaVersion

__all__ = [
    "MAX_NESTING",
    "UnknownFieldsWarning",
    "dump_trajectory",
    "load_trajectory",
    "trajectory_to_dict",
    "unknown_fields",
]

MAX_NESTING = 200
"""Deepest JSON nesting (objects and arrays) a trajectory may have.

pydantic stops serialising at about 255 levels, so a deeper document would load but then fail in
normalize and shape; it is rejected when loaded instead, with the JSON path where it gets too deep.
"""
_PATH_SHOWN = 12  # segments of a too-deep path shown before "...": the rest repeats
_UNKNOWN_SHOWN = 3  # unknown-field paths named in the warning; validate lists them all
_VERSION_RE = re.compile(r"^ATIF-v(\d+)\.(\d+)$")
# pydantic names the branch of a union it tried ("str", "list[tagged-union[...]]",
# "function-after[...]"); those labels are not keys of the document.
_UNION_LABEL = re.compile(r"^(str|int|float|bool|none|[a-z-]+\[.*\])$")


class UnknownFieldsWarning(UserWarning):
    """A loaded trajectory has fields ATIF does not define (kept as they are)."""


def document_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """A pydantic error location as keys and indices of the document (union labels dropped)."""
    out: list[int | str] = []
    tag_next = False
    for part in loc:
        if isinstance(part, int):
            out.append(part)
        elif _UNION_LABEL.match(part):
            # inside a tagged union the next loc part is the discriminator value ("text"),
            # not a document key either
            tag_next = "tagged-union[" in part
        elif tag_next:
            tag_next = False
        else:
            out.append(part)
    return tuple(out)


def json_path(loc: tuple[int | str, ...]) -> str:
    """``$.steps[1].message`` for a document location."""
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)


def _json_path(loc: tuple[int | str, ...]) -> str:
    return json_path(document_loc(loc))


def _check_version(data: Mapping[str, Any], file: str | None) -> None:
    version = data.get("schema_version")
    if version is None:
        raise InvalidTrajectory(
            "not an ATIF trajectory: the root object has no schema_version",
            file=file,
            path="$.schema_version",
            hint=f'an ATIF file starts with {{"schema_version": "{ATIF_VERSION}", '
            '"agent": ..., ...}',
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
            raw = read_regular_bytes(Path(source), max_bytes=MAX_DOCUMENT_BYTES)
            text = raw.decode("utf-8")
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
    except ValueError as exc:  # an integer literal over Python's 4,300-digit conversion limit
        raise InvalidTrajectory(
            f"not readable JSON: {str(exc).split(';')[0]}",
            file=file or "<string>",
            hint="no ATIF field holds a number that long: check how the file was written",
        ) from None


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


def read_document(source: str | Path | bytes | Mapping[str, Any]) -> tuple[Trajectory, str | None]:
    """The trajectory and the file it came from, without warning about unknown fields."""
    data, file = read_json(source)
    try:
        return Trajectory.model_validate(data), file
    except ValidationError as exc:
        raise _structural_error(exc, file) from None


def read_json(
    source: str | Path | bytes | Mapping[str, Any],
) -> tuple[Mapping[str, Any], str | None]:
    """The document as JSON, checked as far as it can be before the schema.

    It is an object with a supported ``schema_version``, nested no deeper than the limit.
    """
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
    return data, file


def load_trajectory(
    source: str | Path | bytes | Mapping[str, Any] | Trajectory,
) -> Trajectory:
    """Load an ATIF v1.0 to v1.8 trajectory from a path, a JSON string, bytes or a dict.

    A ``str`` that starts with ``{`` or ``[`` is JSON text; pass a :class:`~pathlib.Path` to
    read a file whose name starts that way. Fields ATIF does not define are kept on the models;
    one :class:`UnknownFieldsWarning` names them (:func:`unknown_fields` lists them all).

    Raises:
        InvalidTrajectory: not JSON, not ATIF, nested deeper than :data:`MAX_NESTING`, or a
            structural error; the message names the file and the JSON path of each problem.
        UnsupportedSchemaVersion: a schema_version outside v1.0 to v1.8.
    """
    if isinstance(source, Trajectory):
        return source
    trajectory, file = read_document(source)
    unknown = unknown_fields(trajectory)
    if unknown:
        shown = ", ".join(unknown[:_UNKNOWN_SHOWN])
        more = f" and {len(unknown) - _UNKNOWN_SHOWN} more" if len(unknown) > _UNKNOWN_SHOWN else ""
        warnings.warn(
            UnknownFieldsWarning(
                f"{file or 'trajectory'}: {len(unknown)} field(s) not in ATIF, kept as they are: "
                f"{shown}{more} (ATIF puts custom data in `extra`; `trajguard validate` "
                "lists every one)"
            ),
            stacklevel=2,
        )
    return trajectory


def structural_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """Every ``(JSON path, message)`` the schema refuses, in document order."""
    found = []
    for err in exc.errors(include_url=False):
        got = err.get("input")
        shown = "" if isinstance(got, dict | list) else f" (got {got!r:.60})"
        loc = err["loc"]
        branch = bool(loc) and isinstance(loc[-1], str) and bool(_UNION_LABEL.match(loc[-1]))
        found.append((_json_path(loc), branch, f"{err['msg']}{shown}"))
    paths = [path for path, _, _ in found]
    # A value that fits no branch of a union fails each one; when one branch got further into
    # the value (a content part list), its errors say what is wrong and the others do not.
    problems = [
        (path, message)
        for path, branch, message in found
        if not (branch and any(_below(other, path) for other in paths))
    ]
    return problems


def _structural_error(exc: ValidationError, file: str | None) -> InvalidTrajectory:
    problems = structural_problems(exc)
    first_path, first_message = problems[0]
    details = [f"also {path}: {message}" for path, message in problems[1:8]]
    if len(problems) > 8:
        details.append(f"... and {len(problems) - 8} more")
    return InvalidTrajectory(
        f"not valid ATIF: {first_message}",
        file=file,
        path=first_path,
        details=details,
        hint=f"fix the field(s) above; the format is described in ATIF's RFC ({ATIF_VERSION})",
    )


def _below(path: str, ancestor: str) -> bool:
    return path.startswith(ancestor) and path[len(ancestor) : len(ancestor) + 1] in (".", "[")


def trajectory_to_dict(trajectory: Trajectory) -> dict[str, Any]:
    """The trajectory as a JSON-ready dict, written as the current ATIF version.

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
    """The trajectory as JSON text in the current ATIF version."""
    return json.dumps(trajectory_to_dict(trajectory), indent=indent, ensure_ascii=False)


def unknown_fields(trajectory: Trajectory) -> list[str]:
    """JSON paths of every field the ATIF schema does not define (kept, not dropped)."""
    return list(_walk_unknown(trajectory, "$"))


def _walk_unknown(value: Any, path: str) -> Iterator[str]:
    # Runs on every load (for the warning): only models and lists can hold a model, so only
    # they are entered; "extra" is producer-specific by design, and its keys are not unknown.
    if isinstance(value, BaseModel):
        for key in value.__pydantic_extra__ or {}:
            yield f"{path}.{key}"
        for name, item in value.__dict__.items():
            if name != "extra" and isinstance(item, BaseModel | list):
                yield from _walk_unknown(item, f"{path}.{name}")
    else:
        for index, item in enumerate(value):
            if isinstance(item, BaseModel | list):
                yield from _walk_unknown(item, f"{path}[{index}]")
