"""The pages' inline assets (styles, scripts) and their content-security-policy hashes."""

from __future__ import annotations

import base64
import hashlib
from importlib import resources

__all__ = ["asset", "csp_hash"]


def asset(name: str) -> str:
    """The text of the package file ``name`` (a style sheet or a script)."""
    return resources.files("trajguard.report.html").joinpath(name).read_text(encoding="utf-8")


def csp_hash(source: str) -> str:
    """``source``'s hash as a content security policy names it (``'sha256-…'``)."""
    digest = hashlib.sha256(source.encode()).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"
