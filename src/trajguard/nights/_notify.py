"""The trend's optional notification: the newest night's harmful alarms POSTed as JSON to a
webhook (``trend --webhook URL``). Standard library only; the URL is never printed (it often
carries a token)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from trajguard.errors import UsageError
from trajguard.results import TrendFacts

__all__ = ["WEBHOOK_TIMEOUT_S", "alarm_payload", "check_webhook", "post_alarms"]

WEBHOOK_TIMEOUT_S = 10.0
"""Seconds the POST may take before it is given up (the command's exit code is kept)."""


def check_webhook(url: str) -> str:
    """``url`` when it is an http(s) URL with a host.

    Raises:
        UsageError: another scheme, or no host (the message does not repeat the URL).
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            "--webhook must be an http:// or https:// URL with a host "
            f"(got a {parts.scheme or 'schemeless'} URL)"
        )
    return url


def alarm_payload(facts: TrendFacts) -> dict[str, Any]:
    """What is POSTed: the suite, its newest night and the harmful alarms raised on it."""
    newest = facts.nights - 1
    alarms = [
        {"scenario": s.scenario, "variant": s.variant, **vars(a)}
        for s in facts.scenarios
        for a in s.alarms
        if a.harmful and a.raised_index == newest
    ]
    night = alarms[0]["raised_night_id"] if alarms else None
    return {
        "kind": "trajguard.trend.alarm",
        "suite": facts.suite,
        "store": facts.store,
        "night_id": night,
        "target_arl": facts.monitoring.target_arl if facts.monitoring else None,
        "alarms": alarms,
    }


def post_alarms(url: str, facts: TrendFacts) -> str | None:
    """POST :func:`alarm_payload` to ``url`` when the newest night raised a harmful alarm.

    Returns:
        ``None`` when nothing was sent or the server took it (2xx); else what went wrong, in
        words that name the host but not the URL.
    """
    payload = alarm_payload(facts)
    if not payload["alarms"]:
        return None
    host = urlsplit(url).hostname
    request = urllib.request.Request(  # noqa: S310 (the scheme is checked: http or https)
        check_webhook(url),
        data=json.dumps(payload, sort_keys=True).encode("utf-8"),
        headers={"Content-Type": "application/json", "User-Agent": "trajguard"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT_S) as response:  # noqa: S310
            status = int(response.status)
    except urllib.error.HTTPError as error:
        return f"the webhook at {host} answered HTTP {error.code}"
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return f"the webhook at {host} could not be reached ({type(reason).__name__})"
    if not 200 <= status < 300:
        return f"the webhook at {host} answered HTTP {status}"
    return None
