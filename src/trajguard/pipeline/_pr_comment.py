"""A comparison's pull-request comment: rendered from its comparison.json (or, when trajguard
stopped before comparing, from its exit code), then posted as the pull request's one comment, or
written to the job summary when there is no token that may comment (a fork's pull request)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from trajguard._text import printable
from trajguard.errors import StoreError, UsageError
from trajguard.github import DEFAULT_API_URL, GitHubApi, GitHubRefused, upsert_comment
from trajguard.pipeline._rerender import _read
from trajguard.report import comment_marker, render_not_compared, render_pr_comment
from trajguard.results import COMPARISON_FILE, read_document

__all__ = ["PostedComment", "pr_comment_text", "publish_pr_comment"]


@dataclass(frozen=True, kw_only=True)
class PostedComment:
    """Where the comment went.

    Attributes:
        action: ``created`` or ``updated`` on the pull request, or ``summary`` (written to the
            job summary instead), or ``none`` (no token and no job summary: nowhere).
        body: the comment.
        url: the comment's address on GitHub.
        reason: why it did not go to the pull request.
    """

    action: Literal["created", "updated", "summary", "none"]
    body: str
    url: str | None = None
    reason: str | None = None


def pr_comment_text(
    source: Path | None,
    *,
    page_url: str | None = None,
    key: str = "trajguard",
    exit_code: int | None = None,
    reason: str | None = None,
) -> str:
    """The comment of ``source`` (a comparison.json); without one (``None``, or a file the
    command did not write), the "not compared" comment of ``exit_code``.

    Raises:
        UsageError: neither a comparison.json nor an exit code other than 0 and 1 to report.
        StoreError: ``source`` cannot be read.
        InvalidResultData: ``source`` is not a comparison document.
    """
    if source is not None and (source.exists() or exit_code in (None, 0, 1)):
        document = read_document(_read(source), file=source)
        return render_pr_comment(document, page_url=page_url, key=key)
    if exit_code is None or exit_code in (0, 1):
        raise UsageError(
            f"no {COMPARISON_FILE} to render a comment from",
            hint=f"pass the {COMPARISON_FILE} a comparison wrote, or --exit-code with the code "
            "trajguard stopped with",
        )
    why = reason or f"trajguard exited {exit_code} before it wrote a {COMPARISON_FILE}."
    return render_not_compared(exit_code=exit_code, reason=why, page_url=page_url, key=key)


def _to_summary(body: str, summary: Path | None, reason: str) -> PostedComment:
    if summary is None:
        return PostedComment(action="none", body=body, reason=reason)
    try:
        with summary.open("a", encoding="utf-8") as target:
            target.write(printable(body, keep="\n\t") + "\n")
    except OSError as error:
        raise StoreError(f"cannot write the job summary: {error.strerror}", file=summary) from None
    return PostedComment(action="summary", body=body, reason=reason)


def publish_pr_comment(
    body: str,
    *,
    repo: str,
    pr: int | None,
    token: str | None,
    api_url: str = DEFAULT_API_URL,
    key: str = "trajguard",
    summary: Path | None = None,
) -> PostedComment:
    """Create or update the pull request's one comment of ``key`` with ``body``; without a
    token, or when GitHub refuses it (a fork's read-only token), or outside a pull request
    (``pr`` is ``None``), append ``body`` to the job summary file ``summary`` instead (no API
    call is made without a token or a pull request).

    Raises:
        UsageError: ``repo``, ``pr`` or ``api_url`` is malformed.
        GitHubApiError: the API failed other than by refusing the token.
    """
    if pr is not None and pr < 1:
        raise UsageError(f"--pr {pr} is not a pull request number", hint="e.g. --pr 42")
    if pr is None:
        return _to_summary(body, summary, "not a pull request")
    if not token:
        return _to_summary(body, summary, "no token: a fork's pull request, or none was given")
    api = GitHubApi(base_url=api_url, token=token)
    try:
        done = upsert_comment(api, repo, pr, body, marker=comment_marker(key))
    except GitHubRefused as refused:
        return _to_summary(body, summary, str(refused))
    return PostedComment(action=done.action, body=body, url=done.url)
