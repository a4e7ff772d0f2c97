"""Text from elsewhere shown as text: control characters escaped, ``str()`` that cannot fail.

Every string trajguard did not write itself — a model's answer or an invented tool name, a
tool's output, an error message, a scenario name read from a run set, a path — goes through
:func:`printable` before it reaches a terminal, a markdown report, a JUnit file or a job
summary. A raw ESC would let such a string recolour the terminal, set its window title, plant an
OSC 8 hyperlink or hide text; a raw BEL or NUL makes an XML file unreadable. Each control
character becomes a visible escape (``\\x1b``, ``\\u202e``), so the text is still all there.
"""

from __future__ import annotations

import re

__all__ = ["CONTROL", "counted", "has_control", "json_safe", "printable", "safe_str", "shorten"]

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
CONTROL = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_BIDI}\\ufeff\\ufff9-\\ufffb\\ud800-\\udfff]")
"""C0 and C1 control characters, DEL, and the invisible characters that reorder or hide text
(bidirectional marks, embeddings, overrides and isolates; the byte-order mark; interlinear
annotation marks; lone surrogates, which no encoder writes)."""

_KEPT = {"\n": "newline", "\t": "tab"}


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, *, keep: str = "") -> str:
    """``text`` as a string with every control character escaped (``\\x1b``, ``\\u202e``).

    Args:
        keep: control characters to leave as they are: ``"\\n"`` for multi-line text (a
            report, an error with its hint), ``"\\n\\t"`` for text with tabs as well. Only
            newline and tab can be kept.
    """
    unknown = set(keep) - set(_KEPT)
    if unknown:
        raise ValueError(f"only newline and tab can be kept, not {sorted(unknown)!r}")
    value = text if isinstance(text, str) else safe_str(text)
    if not keep:
        return CONTROL.sub(_escape, value)
    return CONTROL.sub(lambda m: m.group() if m.group() in keep else _escape(m), value)


def json_safe(text: str) -> str:
    """JSON text with every control character :func:`printable` escapes written as a JSON
    escape (``\u001b``): the same document, byte-safe for any reader. In JSON that
    ``json.dumps`` wrote they can only be inside strings, where the escape means the same."""
    return CONTROL.sub(
        lambda m: m.group() if m.group() in "\n\t" else f"\\u{ord(m.group()):04x}", text
    )


def has_control(text: str, *, keep: str = "") -> bool:
    """Whether ``text`` holds a control character :func:`printable` would escape."""
    return any(match.group() not in keep for match in CONTROL.finditer(text))


def safe_str(value: object) -> str:
    """``str(value)``, or a description of it when its ``__str__`` (and ``__repr__``) raise:
    a user's object must not turn the message about it into a crash."""
    try:
        return str(value)
    except Exception as exc:  # a user-defined __str__ that raises
        try:
            shown = repr(value)
        except Exception:
            shown = f"<{type(value).__name__} object>"
        return f"{shown} (its str() raised {type(exc).__name__})"


def shorten(text: str, width: int = 160) -> tuple[str, bool]:
    """The first line of ``text``, cut at a word boundary to at most ``width`` characters (and
    ``…``), and whether anything was left out (a later line, or the end of the first).

    A first line with no space in its second half is cut at ``width`` itself.
    """
    stripped = text.strip()
    first = stripped.split("\n", 1)[0].rstrip()
    rest = len(first) < len(stripped)
    if len(first) <= width:
        return (first + " …" if rest else first), rest
    cut = first.rfind(" ", 0, width)
    end = cut if cut >= width // 2 else width - 1
    return first[:end].rstrip() + "…", True


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and the noun in the number it takes: "1 run", "2 runs", "0 runs" (``plural``
    for a noun that does not take an s: ``counted(n, "was", "were")``)."""
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"
