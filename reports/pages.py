"""What the README and the tutorial show of real runs, cut from committed files (issue 27).

A page marks every output it shows with ``<!-- generated:NAME -->`` … ``<!-- /generated -->``;
:func:`contents` says what goes between the marks of each NAME, computed only from files in the
repository, and :func:`fill` puts it there. ``python reports/regenerate.py`` rewrites the pages
that way (with ``--tutorial`` it first runs the tutorial against the embedded model and keeps
what its commands printed under ``reports/sample-tutorial/``); tests/docs/test_generated.py fails
when a page differs from what :func:`fill` makes of it.

The excerpt functions raise :class:`ExcerptError` when the text they cut from no longer has the
shape they expect, so a changed report format fails the regeneration and the tests instead of
slipping a half-excerpt into a page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

PAGES = ("README.md", "docs/tutorial.md")
"""The pages whose snippets run in tests/docs/test_snippets.py and whose outputs are generated."""
TUTORIAL_SAMPLES = Path("reports/sample-tutorial")
"""What the tutorial's commands printed in a real run (``regenerate.py --tutorial``)."""
COMMAND = "python reports/regenerate.py"

_MARK = re.compile(
    r"(?P<open><!-- generated:(?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)"
    r"(?P<close><!-- /generated -->)",
    re.S,
)
_FENCE = re.compile(r"^(?P<fence>`{3,})(?P<lang>[A-Za-z0-9_+-]*)[ \t]*$")
_OPTIONS = re.compile(r"^<!-- snippet: (?P<options>.+?) -->$")
_WIDTH = 180
"""A bullet of a report's headline longer than this is cut at a clause (pages keep short lines)."""


class ExcerptError(ValueError):
    """A source no longer has the shape its excerpt expects."""


@dataclass(frozen=True, kw_only=True)
class Block:
    """One fenced code block of a page.

    Attributes:
        page: the page's path relative to the repository (``README.md``).
        line: the line of its opening fence, from 1.
        lang: the fence's language (``bash``, ``python``, ``yaml``, ``text``; ``""`` for none).
        text: what is between the fences, with a final newline.
        options: the ``<!-- snippet: key=value … -->`` line just above the fence, if any
            (``file=NAME``: the block is that file's content; ``exits=0,1``: the exit codes the
            page explains for it).
        generated: the name of the generated region the block is in, or None.
    """

    page: str
    line: int
    lang: str
    text: str
    options: Mapping[str, str] = field(default_factory=dict)
    generated: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page}:L{self.line}"


def blocks(text: str, page: str) -> list[Block]:
    """Every fenced block of a page, in order."""
    regions = [(m.start("body"), m.end("body"), m.group("name")) for m in _MARK.finditer(text)]
    found: list[Block] = []
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index].rstrip("\n"))
        if opening is None:
            index += 1
            continue
        close = next(
            (
                j
                for j in range(index + 1, len(lines))
                if lines[j].rstrip("\n") == opening.group("fence")
            ),
            None,
        )
        if close is None:
            raise ExcerptError(f"{page}:L{index + 1}: a code fence that is never closed")
        above = lines[index - 1].strip() if index else ""
        options = _OPTIONS.match(above)
        start = offsets[index]
        found.append(
            Block(
                page=page,
                line=index + 1,
                lang=opening.group("lang"),
                text="".join(lines[index + 1 : close]),
                options=_parse_options(options.group("options")) if options else {},
                generated=next((name for a, b, name in regions if a <= start < b), None),
            )
        )
        index = close + 1
    return found


def _parse_options(text: str) -> dict[str, str]:
    pairs = [item.partition("=") for item in text.split()]
    return {key: value for key, _, value in pairs}


def generated_names(text: str) -> list[str]:
    """The names of a page's generated regions, in order."""
    return [m.group("name") for m in _MARK.finditer(text)]


def regions(text: str) -> list[tuple[str, int]]:
    """Each generated region's name and the line of its opening mark, from 1."""
    return [(m.group("name"), text.count("\n", 0, m.start()) + 1) for m in _MARK.finditer(text)]


def fill(text: str, contents: Mapping[str, str]) -> str:
    """The page with every generated region holding ``contents[name]``.

    Raises:
        ExcerptError: a region whose name :func:`contents` does not know.
    """

    def region(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in contents:
            raise ExcerptError(f"no generated content is named {name!r} (see reports/pages.py)")
        return match.group("open") + contents[name] + match.group("close")

    return _MARK.sub(region, text)


def _table(lines: list[str], start: int) -> list[str]:
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[start:end]


def _short(bullet: str) -> str:
    """A headline bullet cut to its first clauses (``; `` or `` — ``), marked with an ellipsis."""
    if len(bullet) <= _WIDTH:
        return bullet
    cuts = [m.start() for m in re.finditer(r"; | — ", bullet) if m.start() <= _WIDTH - 2]
    if not cuts:
        raise ExcerptError(f"a headline bullet with no clause to cut at: {bullet[:80]}…")
    return bullet[: cuts[-1]] + " …"


def report_excerpt(report: str) -> str:
    """The head of a nightly's ``report.md``: its verdict with what failed (each bullet cut to
    its first clauses), the count of scenarios by verdict and the table of scenarios."""
    lines = report.splitlines()
    verdict = next((i for i, line in enumerate(lines) if line.startswith("**Verdict:")), None)
    if verdict is None:
        raise ExcerptError("the report has no '**Verdict:' line")
    head = [lines[verdict]]
    at = verdict + 1
    while at < len(lines) and (not lines[at] or lines[at].startswith("- ")):
        if lines[at]:
            head.append(_short(lines[at]))
        at += 1
    counts = next(
        (i for i in range(at, len(lines)) if re.match(r"\d+ scenarios?: ", lines[i])), None
    )
    table = next((i for i in range(at, len(lines)) if lines[i].startswith("| scenario |")), None)
    if table is None:
        raise ExcerptError("the report has no '| scenario |' table")
    rows = _table(lines, table)
    if len(rows) < 3:
        raise ExcerptError("the report's table of scenarios has no row")
    # a verdict with nothing to list carries the counts itself: no line of its own
    tally = ["", lines[counts]] if counts is not None and counts < table else []
    parts = [head[0], *(["", *head[1:]] if len(head) > 1 else []), *tally, "", *rows]
    return "\n".join(parts) + "\n"


def ab_excerpt(report: str) -> str:
    """The head of an A/B's ``ab.md``: its answer (the bold sentence), what these runs could
    detect, and the overall table (stratified by scenario)."""
    lines = report.splitlines()
    answer = next((line for line in lines if line.startswith("**Answer:")), None)
    if answer is None or "**" not in answer[2:]:
        raise ExcerptError("the A/B report has no '**Answer: …**' sentence")
    sentence = answer[: answer.index("**", 2) + 2]
    power = next((line for line in lines if line.startswith("These runs could detect")), None)
    table = next((i for i, line in enumerate(lines) if line.startswith("| metric | test |")), None)
    if power is None or table is None:
        raise ExcerptError("the A/B report has no 'These runs could detect' line or no table")
    return "\n".join([sentence, "", power, "", *_table(lines, table)]) + "\n"


def output_block(captured: str) -> str:
    """What a command printed, as a ``text`` block (trailing spaces and blank lines dropped)."""
    text = "\n".join(line.rstrip() for line in captured.strip("\n").splitlines())
    if not text:
        raise ExcerptError("the command printed nothing")
    return f"```text\n{text}\n```\n"


def _from(path: Path, cut: Callable[[str], str]) -> Callable[[Path], str]:
    def make(root: Path) -> str:
        source = root / path
        if not source.is_file():
            raise ExcerptError(f"{path} is missing: run {COMMAND} --tutorial")
        try:
            return cut(source.read_text(encoding="utf-8"))
        except ExcerptError as error:
            raise ExcerptError(f"{path}: {error}") from None

    return make


SOURCES: dict[str, Callable[[Path], str]] = {
    "nightly-excerpt": _from(Path("reports/sample-nightly/report.md"), report_excerpt),
    "ab-excerpt": _from(Path("reports/sample-ab/ab.md"), ab_excerpt),
    "tutorial-report": _from(TUTORIAL_SAMPLES / "report.md", report_excerpt),
}
"""Each generated region's name and how its content is made from the repository's files.
Any other name ``output-X`` of a page is the captured output ``reports/sample-tutorial/X.txt``
of the bash block just above the region."""


def contents(root: Path, names: list[str]) -> dict[str, str]:
    """What goes into each named region, from the files under ``root`` (the repository)."""
    made: dict[str, str] = {}
    for name in names:
        if name in SOURCES:
            made[name] = SOURCES[name](root)
        elif name.startswith("output-"):
            capture = TUTORIAL_SAMPLES / f"{name.removeprefix('output-')}.txt"
            made[name] = _from(capture, output_block)(root)
        else:
            raise ExcerptError(f"no generated content is named {name!r} (see reports/pages.py)")
    return made


def expected(root: Path, page: str) -> str:
    """The page as :func:`fill` makes it from the files under ``root``."""
    text = (root / page).read_text(encoding="utf-8")
    return fill(text, contents(root, generated_names(text)))


def rewrite(root: Path) -> list[Path]:
    """Rewrite every page's generated regions; the pages that changed."""
    changed = []
    for page in PAGES:
        path = root / page
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        new = expected(root, page)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed
