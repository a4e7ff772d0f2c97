"""``trajguard pr-comment COMPARISON_JSON --repo O/R --pr N``: the pull request's one comment."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

NAME = "pr-comment"
HELP = "create or update the pull request's one trajguard comment (else the job summary)"
TOKEN_VARIABLE = "GITHUB_TOKEN"  # noqa: S105 (the variable's name, not a secret)


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Render the pull-request comment of a comparison.json (as `trajguard "
        "report --format pr-comment` does) and post it as the pull request's one trajguard "
        "comment: the comment whose hidden marker matches is updated in place, else one is "
        f"created. The token is read from ${TOKEN_VARIABLE}, never from the command line. "
        "Without a token, or when GitHub refuses it (a fork's pull request), the comment goes "
        "to the job summary ($GITHUB_STEP_SUMMARY) and no comment is posted. Without the "
        "comparison.json (trajguard stopped before comparing), --exit-code says why: exit 3 "
        "posts 'not comparable'.",
    )
    parser.add_argument(
        "source", type=Path, nargs="?", metavar="COMPARISON_JSON", help="comparison.json"
    )
    parser.add_argument("--repo", required=True, metavar="OWNER/NAME", help="the repository")
    parser.add_argument(
        "--pr",
        type=int,
        metavar="N",
        help="the pull request (none: not a pull request, the job summary only)",
    )
    parser.add_argument(
        "--api-url",
        default="https://api.github.com",
        metavar="URL",
        help="GitHub's REST API (default https://api.github.com; GitHub Enterprise: "
        "https://HOST/api/v3)",
    )
    parser.add_argument(
        "--page-url", metavar="URL", help="where report.html is published (links the runs)"
    )
    parser.add_argument(
        "--key", default="trajguard", help="the comment's key: one comment per key and PR"
    )
    parser.add_argument(
        "--exit-code",
        type=int,
        metavar="CODE",
        help="the exit code of the trajguard command that made (or did not make) COMPARISON_JSON",
    )
    parser.add_argument(
        "--reason",
        metavar="TEXT",
        help="without COMPARISON_JSON: why trajguard stopped (its last lines of error output)",
    )
    parser.add_argument(
        "--summary",
        type=Path,
        metavar="PATH",
        help="the job summary file the comment falls back to (default $GITHUB_STEP_SUMMARY)",
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard import pipeline

    body = pipeline.pr_comment_text(
        args.source,
        page_url=args.page_url,
        key=args.key,
        exit_code=args.exit_code,
        reason=args.reason,
    )
    summary = args.summary or (
        Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY") else None
    )
    posted = pipeline.publish_pr_comment(
        body,
        repo=args.repo,
        pr=args.pr,
        token=os.environ.get(TOKEN_VARIABLE),
        api_url=args.api_url,
        key=args.key,
        summary=summary,
    )
    if posted.action in ("created", "updated"):
        print(f"{posted.action} the pull request's comment: {posted.url or '(no address given)'}")
    elif posted.action == "summary":
        print(f"wrote the comment to the job summary {summary} ({posted.reason})")
    else:
        print(f"not posted ({posted.reason}); no job summary to write to. The comment:\n")
        print(body, end="")
    return 0
