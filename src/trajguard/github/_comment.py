"""One comment per pull request and key: found by its marker, updated in place, else created."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from trajguard.github._client import GitHubApi, GitHubApiError

__all__ = ["Upserted", "upsert_comment"]


@dataclass(frozen=True, kw_only=True)
class Upserted:
    """What became of the comment.

    Attributes:
        action: ``created`` (no comment had the marker) or ``updated``.
        comment_id: its id.
        url: its address on GitHub (``None`` when the API did not say).
    """

    action: Literal["created", "updated"]
    comment_id: int
    url: str | None


def _first_line(body: object) -> str:
    return body.split("\n", 1)[0].strip() if isinstance(body, str) else ""


def upsert_comment(api: GitHubApi, repo: str, pr: int, body: str, *, marker: str) -> Upserted:
    """Update the pull request's comment whose first line is ``marker`` (the oldest, if an
    earlier tool left several), or create it. ``body`` must start with ``marker``.

    Raises:
        ValueError: ``body`` does not start with ``marker`` (it could not be found again).
        GitHubApiError: the API failed (:class:`GitHubRefused` when it refused the token).
    """
    if _first_line(body) != marker:
        raise ValueError("the comment's first line must be its marker")
    mine = next((c for c in api.comments(repo, pr) if _first_line(c.get("body")) == marker), None)
    if mine is None:
        answer, action = api.create_comment(repo, pr, body), "created"
    else:
        if not isinstance(mine.get("id"), int):
            raise GitHubApiError("GitHub listed a comment without an id")
        answer, action = api.update_comment(repo, mine["id"], body), "updated"
    comment_id = answer.get("id")
    if not isinstance(comment_id, int):
        raise GitHubApiError("GitHub's answer names no comment id")
    url = answer.get("html_url")
    return Upserted(
        action="created" if action == "created" else "updated",
        comment_id=comment_id,
        url=url if isinstance(url, str) else None,
    )
