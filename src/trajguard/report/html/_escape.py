"""Text from elsewhere as HTML text: control characters made visible, then HTML-escaped."""

from __future__ import annotations

import html
import re

from trajguard._text import printable

__all__ = ["anchor", "attr", "text"]


def text(value: object, *, keep_lines: bool = False) -> str:
    """``value`` as HTML text: every control character escaped as ``\\x1b`` (newlines kept
    with ``keep_lines``), then ``&``, ``<``, ``>`` and both quotes as entities — safe in an
    element and in a quoted attribute."""
    return html.escape(printable(value, keep="\n" if keep_lines else ""), quote=True)


def attr(value: object) -> str:
    """``value`` as a quoted attribute value (quotes included)."""
    return f'"{text(value)}"'


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def anchor(prefix: str, index: int, name: str) -> str:
    """An element id no name can break: ``prefix-index-slug``."""
    slug = _UNSAFE.sub("-", name).strip("-")[:40] or "x"
    return f"{prefix}-{index}-{slug}"
