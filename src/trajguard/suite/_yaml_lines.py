"""Load YAML and remember where every value came from, so errors can name the line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from trajguard.errors import SuiteError
from trajguard.suite._files import read_suite_bytes

__all__ = ["Key", "LineMap", "dotted", "load_yaml_with_lines", "undotted"]

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


_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def undotted(text: str) -> Key:
    """``scenarios[0].agent`` → ``("scenarios", 0, "agent")`` (the inverse of :func:`dotted`
    for keys without dots or brackets)."""
    return tuple(int(index) if index else key for index, key in _PART.findall(text))


# Aliases make the node graph a DAG (or, for a recursive alias, a cycle): walking it expands
# every alias, so a few nested anchors ("billion laughs") would take forever without a bound.
MAX_WALKED_NODES = 1_000_000


class _Loader(yaml.SafeLoader):
    """The safe loader, remembering where each alias (``*name``) is used."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.alias_uses: list[tuple[yaml.Node, str, yaml.Mark]] = []

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            target = self.anchors.get(event.anchor)
            if target is not None:
                self.alias_uses.append((target, event.anchor, event.start_mark))
        return super().compose_node(parent, index)


_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", None)
"""libyaml's safe loader where PyYAML was built with it: it composes a suite some fifteen times
faster than the pure-Python one, which stays the fallback (and finds a recursive alias's line)."""


def _read_suite_text(path: Path) -> str:
    try:
        return read_suite_bytes(path).decode("utf-8")
    except FileNotFoundError:
        raise SuiteError("suite file not found", file=path, hint="check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"cannot read suite file: {exc}", file=path) from None


def _recursive_alias(node: yaml.Node, path: Key, lines: dict[Key, int], file: Path) -> SuiteError:
    """The error for ``node`` found again inside itself, at ``path``."""
    line = lines.get(path)
    name = "an alias"
    for anchor, mark in _alias_uses_inside(file, node.start_mark.index, node.end_mark.index):
        name, line = f"*{anchor}", mark.line + 1
        break
    return SuiteError(
        f"recursive YAML alias: {name} is used inside the value it names "
        f"(anchored on line {node.start_mark.line + 1})",
        file=file,
        line=line,
        path=dotted(path) or None,
        hint="a value cannot contain itself: copy the part you need instead of the alias",
    )


def _alias_uses_inside(file: Path, start: int, end: int) -> list[tuple[str, yaml.Mark]]:
    """The aliases used between ``start`` and ``end`` (character offsets) that name a node
    holding that span: composed again with the pure-Python loader, which records them (only
    on the way to an error)."""
    loader = _Loader(_read_suite_text(file))
    try:
        loader.get_single_node()
    finally:
        loader.dispose()
    return [
        (anchor, mark)
        for target, anchor, mark in loader.alias_uses
        if start <= mark.index <= end
        and target.start_mark.index == start
        and target.end_mark.index == end
    ]


def _walk(root: yaml.Node, lines: dict[Key, int], file: Path) -> None:
    """Record the line of every key and item, depth first, without recursion.

    Raises:
        SuiteError: a duplicate key in a mapping, a recursive alias, or aliases that expand to
            more than :data:`MAX_WALKED_NODES` values.
    """
    lines.setdefault((), root.start_mark.line + 1)
    ancestors: set[int] = set()  # ids of the collection nodes above the one being walked
    # (node, path, leaving): leaving=True pops ``node`` off the ancestors once its children are done
    stack: list[tuple[yaml.Node, Key, bool]] = [(root, (), False)]
    walked = 0
    while stack:
        node, path, leaving = stack.pop()
        if leaving:
            ancestors.discard(id(node))
            continue
        walked += 1
        if walked > MAX_WALKED_NODES:
            raise SuiteError(
                f"the YAML expands to more than {MAX_WALKED_NODES} values",
                file=file,
                line=lines.get(path[:1]),
                path=dotted(path[:1]) or None,
                hint="aliases (*name) nested in aliases multiply; copy what you need instead",
            )
        children: list[tuple[yaml.Node, Key]] = []
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
                children.append((value_node, (*path, key)))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                lines[(*path, index)] = item.start_mark.line + 1
                children.append((item, (*path, index)))
        else:
            continue
        ancestors.add(id(node))
        stack.append((node, path, True))
        for child, child_path in reversed(children):  # reversed: popped in file order
            if id(child) in ancestors:
                raise _recursive_alias(child, child_path, lines, file)
            stack.append((child, child_path, False))


def _too_deep(path: Path, mark: yaml.Mark | None) -> SuiteError:
    return SuiteError(
        "YAML nested too deeply to parse",
        file=path,
        line=mark.line + 1 if mark is not None else None,
        hint="a suite needs only a few levels of nesting: check for unclosed [ or {",
    )


def load_yaml_with_lines(path: Path) -> tuple[Any, LineMap]:
    """Parse a YAML file (safe loader) and return its data with a :class:`LineMap`.

    Raises:
        SuiteError: the file is missing, no regular file, larger than ``MAX_SUITE_BYTES``
            (:mod:`._files`), unreadable, not valid YAML, nested too deeply to parse, has a
            recursive alias, aliases expanding to more than :data:`MAX_WALKED_NODES` values, or
            a duplicate key in a mapping (with its line).
    """
    text = _read_suite_text(path)
    loader = (_FAST_LOADER or _Loader)(text)
    lines: dict[Key, int] = {}
    try:
        # walk before constructing: construction flattens merge keys (<<) in place, and would
        # recurse forever on a recursive merge
        node = loader.get_single_node()
        if node is None:
            return None, LineMap(lines)
        _walk(node, lines, path)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        if "maximum nesting depth" in problem:  # libyaml's own limit (1,000 levels)
            raise _too_deep(path, mark) from None
        raise SuiteError(
            f"not valid YAML: {problem}",
            file=path,
            line=mark.line + 1 if mark is not None else None,
            hint="check indentation and quoting around that line",
        ) from None
    except RecursionError:
        raise _too_deep(path, None) from None
    finally:
        loader.dispose()
    return data, LineMap(lines)
