"""GitHub's REST API, as much as the pull-request comment needs: a pull request's comments
listed page by page, one created or updated in place (:func:`upsert_comment`, found by its
marker). Standard library only; bounded reads, timeouts, no redirects, the token sent to the API's
origin only and never printed."""

from trajguard.github._client import (
    DEFAULT_API_URL,
    GitHubApi,
    GitHubApiError,
    GitHubRefused,
    check_repo,
)
from trajguard.github._comment import Upserted, upsert_comment

__all__ = [
    "DEFAULT_API_URL",
    "GitHubApi",
    "GitHubApiError",
    "GitHubRefused",
    "Upserted",
    "check_repo",
    "upsert_comment",
]
