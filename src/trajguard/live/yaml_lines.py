"""Load YAML and remember where every value came from, so errors can name the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from trajguard.errors import SuiteError

__all__ = ["LineMap", "dotted", "load_yaml_with_lines"]

Key = tuple[int | str, ...]


class LineMap:
    """Maps a path of keys and indices (``("scenarios", 2, "agent")``) to a 1-based line."""

    def __init__(self, lines: dict[Key, int]) -> None:
        self._lines = lines

    def line_of(self, path: Key) -> int | None:
        """The line of the deepest prefix of ``path`` that appears in the file."""
        for end in range(len(path), -1, -1):
            line = self._lines.get(tuple(path[:end]))
            if line is not None:
                return line
        return None


def dotted(path: Key) -> str:
    """``("scenarios", 0, "agent")`` → ``scenarios[0].agent``."""
    return ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in path).replace(".[", "[")


def _walk(node: yaml.Node, path: Key, lines: dict[Key, int], file: Path) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node)
            line = key_node.start_mark.line + 1
            if key in seen and key != "<<":
                raise SuiteError(
                    f"duplicate key {key!r} (first on line {seen[key]})",
                    file=file,
                    line=line,
                    path=dotted((*path, key)),
                    hint="YAML would silently keep only the last one: remove one of them",
                )
            seen[key] = line
            lines[(*path, key)] = line
            _walk(value_node, (*path, key), lines, file)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            lines[(*path, index)] = item.start_mark.line + 1
            _walk(item, (*path, index), lines, file)


def load_yaml_with_lines(path: Path) -> tuple[Any, LineMap]:
    """Parse a YAML file (safe loader) and return its data with a :class:`LineMap`.

    Raises:
        SuiteError: the file is missing, unreadable, not valid YAML, or has a duplicate key in
            a mapping (with its line).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SuiteError("suite file not found", file=path, hint="check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"cannot read suite file: {exc}", file=path) from None
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise SuiteError(
            f"not valid YAML: {problem}",
            file=path,
            line=mark.line + 1 if mark is not None else None,
            hint="check indentation and quoting around that line",
        ) from None
    lines: dict[Key, int] = {}
    if node is not None:
        _walk(node, (), lines, path)
    return data, LineMap(lines)
