"""A small client of GitHub's REST API: a pull request's comments, listed page by page, created
and updated. Standard library only (urllib); every answer is read up to a bound, every request
has a timeout, the token goes only to the API's own origin and is never shown."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from trajguard._text import printable
from trajguard.errors import InfrastructureError, UsageError

__all__ = ["DEFAULT_API_URL", "GitHubApi", "GitHubApiError", "GitHubRefused", "check_repo"]

DEFAULT_API_URL = "https://api.github.com"
_MAX_ANSWER = 16 * 1024 * 1024  # a page of 30 comments of 65,536 characters, JSON-escaped
_MAX_PAGES = 200  # 6,000 comments on one pull request
_PER_PAGE = 30
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answered as errors: urllib would carry the token to wherever they point."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


class GitHubApiError(InfrastructureError):
    """The API did not answer, or answered with an error or with something that is not JSON."""


class GitHubRefused(GitHubApiError):
    """The API refused the token (401, 403, 404): a fork's read-only token, or none that may
    comment on this repository."""


def check_repo(repo: str) -> str:
    """``repo`` if it is ``owner/name``.

    Raises:
        UsageError: it is not.
    """
    if not _REPO.fullmatch(repo) or ".." in repo:
        raise UsageError(f"--repo {repo!r} is not owner/name", hint="e.g. --repo octo/agent")
    return repo


@dataclass(frozen=True, kw_only=True)
class GitHubApi:
    """The REST API at ``base_url`` (``https://api.github.com``, or a GitHub Enterprise
    server's ``https://HOST/api/v3``), called with ``token``."""

    base_url: str = DEFAULT_API_URL
    token: str = field(repr=False)
    timeout: float = 30.0

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(
                f"--api-url {self.base_url!r} is not an http(s) address",
                hint=f"the default is {DEFAULT_API_URL}",
            )

    def _origin(self, url: str) -> tuple[str, str]:
        parts = urlsplit(url)
        return parts.scheme, parts.netloc

    def _call(self, method: str, url: str, body: dict[str, Any] | None = None) -> tuple[Any, str]:
        if self._origin(url) != self._origin(self.base_url):
            raise GitHubApiError(f"the API pointed to another host ({self._origin(url)[1]})")
        request = urllib.request.Request(  # noqa: S310 (http(s) only: checked in __post_init__)
            url,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "X-GitHub-Api-Version": "2022-11-28",
                "Content-Type": "application/json",
                "User-Agent": "trajguard",
            },
        )
        where = f"{method} {urlsplit(url).path}"
        try:
            with _OPENER.open(request, timeout=self.timeout) as answer:
                data = answer.read(_MAX_ANSWER + 1)
                link = answer.headers.get("Link", "")
        except urllib.error.HTTPError as error:
            message = _message(error.read(64 * 1024))
            kind = GitHubRefused if error.code in (401, 403, 404) else GitHubApiError
            raise kind(f"GitHub answered {where} with HTTP {error.code}: {message}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise GitHubApiError(f"GitHub did not answer {where}: {reason}") from None
        if len(data) > _MAX_ANSWER:
            raise GitHubApiError(f"GitHub's answer to {where} is over {_MAX_ANSWER} bytes")
        try:
            return json.loads(data), link
        except ValueError:
            raise GitHubApiError(f"GitHub's answer to {where} is not JSON") from None

    def comments(self, repo: str, pr: int) -> Iterator[dict[str, Any]]:
        """The pull request's comments, oldest first, following the ``Link`` header's next
        page (up to 200 pages)."""
        url: str | None = (
            f"{self.base_url.rstrip('/')}/repos/{check_repo(repo)}/issues/{pr}/comments"
            f"?per_page={_PER_PAGE}"
        )
        for _ in range(_MAX_PAGES):
            if url is None:
                return
            page, link = self._call("GET", url)
            if not isinstance(page, list):
                raise GitHubApiError("GitHub's list of comments is not a list")
            yield from (c for c in page if isinstance(c, dict))
            found = _NEXT.search(link)
            url = found.group(1) if found else None
        raise GitHubApiError(f"the pull request has more than {_MAX_PAGES} pages of comments")

    def create_comment(self, repo: str, pr: int, body: str) -> dict[str, Any]:
        """Post a new comment on the pull request."""
        url = f"{self.base_url.rstrip('/')}/repos/{check_repo(repo)}/issues/{pr}/comments"
        return _object(self._call("POST", url, {"body": body})[0])

    def update_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        """Replace the body of comment ``comment_id``."""
        url = f"{self.base_url.rstrip('/')}/repos/{check_repo(repo)}/issues/comments/{comment_id}"
        return _object(self._call("PATCH", url, {"body": body})[0])


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise GitHubApiError("GitHub's answer is not a comment")
    return value


def _message(data: bytes) -> str:
    try:
        message = json.loads(data).get("message", "")
    except (ValueError, AttributeError):
        message = data.decode("utf-8", "replace")
    return printable(str(message))[:300] or "(no message)"
