"""Secrets out of everything trajguard stores or prints: built-in patterns, user patterns,
secret-named keys, and the literal values of the environment's secrets.

Cassettes redact what they record with a :class:`Redactor` (plus the user's patterns); run rows,
error messages and printed URLs go through :func:`scrub`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "BUILTIN_PATTERNS",
    "REDACTED",
    "Redactor",
    "environment_secrets",
    "scrub",
]

REDACTED = "[REDACTED]"

# Names of secrets (not secrets themselves, hence the noqa).
_SECRET_WORDS = r"api[_-]?key|apikey|access[_-]?key|private[_-]?key|password|passwd|secret"  # noqa: S105
BUILTIN_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?)(?:(?:bearer|basic|token|digest)\s+)?"
        r"[^\s\"',;]*[^\s\"',;.]",
        r"\1" + REDACTED,
    ),
    (r"\bsk-[A-Za-z0-9_-]{16,}", REDACTED),
    (r"\bgh[pousr]_[A-Za-z0-9]{30,}", REDACTED),
    (r"\bAKIA[0-9A-Z]{16}\b", REDACTED),
    (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", REDACTED),
    (r"(\bBearer )[^\s\"',;]*[^\s\"',;.]", r"\1" + REDACTED),
    (r"(://[^/\s:@]*:)[^/\s@]+(@)", r"\1" + REDACTED + r"\2"),
    (r"(?i)([?&](?:key|token|sig|signature|auth|password)=)[^&\s\"'#]+", r"\1" + REDACTED),
    (
        r"(?i)(\b(?:x-)?(?:" + _SECRET_WORDS + r"|client[_-]secret|(?:access|auth|refresh)"
        r"[_-]token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&]*[^\s\"',;}&.]",
        r"\1" + REDACTED,
    ),
)
"""``(pattern, replacement)`` pairs applied to every stored string, in order: provider-shaped
keys (``sk-…``, ``ghp_…``, ``AKIA…``, ``xox?-…``), the credential after ``Bearer `` or
``Authorization:``, the password of a URL (``https://user:…@host``) and a key in its query
(``?key=…``), and the value after a secret-named key in text (``api_key=…``)."""

_SECRET_KEY = re.compile(
    r"(?i)^(?:.*[_-])?(?:" + _SECRET_WORDS + r"|authorization|token|cookie|set-cookie)$"
)


class Redactor:
    """Masks secrets in every string of a JSON-like value; idempotent.

    Besides :data:`BUILTIN_PATTERNS`, a string value under a dict key named like a secret
    (``api_key``, ``authorization``, ``password``, ``token``, ``x-api-key`` …, but not
    ``max_tokens``) becomes ``[REDACTED]`` whatever it looks like. Dict keys are redacted like
    any other string (two keys that redact to the same text keep the last value).

    Args:
        patterns: user regular expressions (``re`` syntax); every match becomes ``[REDACTED]``.
        secrets: literal values to mask wherever they appear (e.g. the API keys of the run's
            environment, :func:`environment_secrets`); values shorter than 8 characters are
            ignored (masking them would mangle ordinary text).

    Raises:
        ValueError: a pattern does not compile or matches the empty string (the message names it).
    """

    def __init__(self, patterns: Iterable[str] = (), *, secrets: Iterable[str] = ()) -> None:
        self.patterns: tuple[str, ...] = tuple(patterns)
        literal = sorted(
            {v for v in secrets if len(v) >= _MIN_SECRET_LENGTH}, key=len, reverse=True
        )
        rules = [(re.compile(re.escape(value)), REDACTED) for value in literal]
        rules += [(re.compile(pattern), repl) for pattern, repl in BUILTIN_PATTERNS]
        for pattern in self.patterns:
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid redaction pattern {pattern!r}: {exc}") from None
            if compiled.fullmatch(""):
                raise ValueError(f"redaction pattern {pattern!r} matches the empty string")
            rules.append((compiled, REDACTED))
        self._rules = tuple(rules)

    def __repr__(self) -> str:  # never the secrets
        return f"Redactor(patterns={self.patterns!r})"

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by ``[REDACTED]``."""
        for pattern, replacement in self._rules:
            text = pattern.sub(replacement, text)
        return text

    def value(self, value: Any) -> Any:
        """A JSON-ready copy of ``value`` with every string redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                self.text(str(k)): REDACTED
                if isinstance(v, str) and _SECRET_KEY.match(str(k))
                else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value


_MIN_SECRET_LENGTH = 8


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of environment variables named like secrets (``OPENAI_API_KEY``,
    ``GITHUB_TOKEN``, ``DB_PASSWORD`` …) long enough to mask."""
    env = os.environ if environ is None else environ
    return [
        value
        for name, value in env.items()
        if _SECRET_KEY.match(name) and len(value) >= _MIN_SECRET_LENGTH
    ]


def scrub(text: str, *, secrets: Iterable[str] = ()) -> str:
    """``text`` with the built-in patterns, the environment's secrets and ``secrets`` masked:
    for every message trajguard prints or stores that a provider or an agent wrote."""
    return Redactor(secrets=[*environment_secrets(), *secrets]).text(text)
