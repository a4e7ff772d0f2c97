"""The pull request's one comment, against a stand-in GitHub API on 127.0.0.1: created once,
then updated in place, found on any page of the comments, the token sent to the API only, a
refused token (a fork) and no token falling back to the job summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.github_api import FakeGitHub, fake_github

from trajguard.github import GitHubApi, GitHubApiError, _client, upsert_comment
from trajguard.report import comment_marker

SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "sample-ab" / "comparison.json"
TOKEN = "ghs_stand-in-token-0123456789"


@pytest.fixture
def github() -> Any:
    with fake_github() as state:
        yield state


def _post(cli: Any, github: FakeGitHub, *extra: str, pr: str = "7") -> Any:
    args = ("pr-comment", str(SAMPLE), "--repo", "octo/agent", "--pr", pr)
    return cli(*args, "--api-url", github.url, *extra, cwd=SAMPLE.parent)


def test_the_first_run_creates_the_comment_and_the_second_updates_it_in_place(
    github: FakeGitHub, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    github.seed("octo/agent", 7, "LGTM", f"{comment_marker('other-suite')}\nanother job's")
    first = _post(cli, github, "--page-url", "https://ci.example/report.html")
    assert first.returncode == 0, first.stderr
    assert "created the pull request's comment: https://github.example/" in first.stdout
    ours = github.on("octo/agent", 7)[2]
    assert ours["body"] == (SAMPLE.parent / "pr-comment.md").read_text().replace(
        "](report.html", "](https://ci.example/report.html"
    ).replace("[the full report](report.html)", "[the full report](https://ci.example/report.html)")
    second = _post(cli, github)
    assert second.returncode == 0, second.stderr
    assert "updated the pull request's comment" in second.stdout
    comments = github.on("octo/agent", 7)
    assert len(comments) == 3, "one comment of ours, never a second"
    assert comments[2]["id"] == ours["id"] and "](https://ci.example" not in comments[2]["body"]
    assert [c["body"] for c in comments[:2]] == [
        "LGTM",
        f"{comment_marker('other-suite')}\nanother job's",
    ]
    methods = [r.method for r in github.requests]
    assert methods.count("POST") == 1 and methods.count("PATCH") == 1
    assert {r.authorization for r in github.requests} == {f"Bearer {TOKEN}"}
    assert TOKEN not in first.stdout + first.stderr + second.stdout + second.stderr


def test_the_comment_is_found_on_a_later_page_of_the_comments(github: FakeGitHub) -> None:
    marker = comment_marker()
    github.seed("octo/agent", 9, *(f"comment {i}" for i in range(5)), f"{marker}\nold", "later")
    api = GitHubApi(base_url=github.url, token=TOKEN)
    done = upsert_comment(api, "octo/agent", 9, f"{marker}\nnew", marker=marker)
    assert done.action == "updated"
    assert [c["body"] for c in github.on("octo/agent", 9)][5:] == [f"{marker}\nnew", "later"]
    pages = [r for r in github.requests if r.method == "GET"]
    assert len(pages) == 3, "per_page 2: the marker is on the third page, and listing stops there"


def test_no_token_writes_the_job_summary_and_calls_no_api(
    github: FakeGitHub, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = _post(cli, github)
    assert result.returncode == 0, result.stderr
    assert "wrote the comment to the job summary" in result.stdout
    assert github.requests == []
    text = summary.read_text()
    assert text.startswith("earlier step\n" + comment_marker())
    assert "**Answer: weather\\_edit behaved differently**" in text


def test_a_forks_refused_token_falls_back_to_the_job_summary(
    github: FakeGitHub, cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    github.refuse = 403
    summary = tmp_path / "summary.md"
    result = _post(cli, github, "--summary", str(summary))
    assert result.returncode == 0, result.stderr
    assert "Resource not accessible by integration" in result.stdout
    assert summary.read_text().startswith(comment_marker())
    assert TOKEN not in result.stdout + result.stderr


def test_a_failing_api_is_an_infrastructure_error_exit_3(
    github: FakeGitHub, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    github.refuse = 502
    result = _post(cli, github)
    assert result.returncode == 3
    assert "GitHub answered GET /repos/octo/agent/issues/7/comments with HTTP 502" in result.stderr
    assert "Traceback" not in result.stderr and TOKEN not in result.stderr


def test_the_token_never_follows_a_redirect_or_a_link_to_another_host(github: FakeGitHub) -> None:
    with fake_github() as elsewhere:
        github.redirect = elsewhere.url
        api = GitHubApi(base_url=github.url, token=TOKEN)
        with pytest.raises(GitHubApiError, match="HTTP 302"):
            list(api.comments("octo/agent", 1))
        github.redirect = None
        github.seed("octo/agent", 2, "a", "b", "c")
        github.url = elsewhere.url  # its Link header now points at another server
        with pytest.raises(GitHubApiError, match="another host"):
            list(api.comments("octo/agent", 2))
        assert elsewhere.requests == []


def test_an_answer_over_the_bound_is_refused(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_client, "_MAX_ANSWER", 200)
    github.seed("octo/agent", 3, "x" * 300)
    with pytest.raises(GitHubApiError, match="over 200 bytes"):
        list(GitHubApi(base_url=github.url, token=TOKEN).comments("octo/agent", 3))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--repo", "octo/../x"), "is not owner/name"),
        (("--pr", "0"), "is not a pull request number"),
        (("--api-url", "file:///etc"), "is not an http(s) address"),
    ],
)
def test_bad_options_exit_2_before_any_call(
    github: FakeGitHub,
    cli: Any,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    message: str,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    base = {"--repo": "octo/agent", "--pr": "4", "--api-url": github.url}
    base[args[0]] = args[1]
    flat = [x for pair in base.items() for x in pair]
    result = cli("pr-comment", str(SAMPLE), *flat, cwd=SAMPLE.parent)
    assert result.returncode == 2 and message in result.stderr
    assert github.requests == []
