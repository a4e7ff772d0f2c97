"""Every code block of README.md and docs/tutorial.md runs as the page shows it (issue 27).

Two kinds of tests:

- ``test_the_block_follows_its_rule[README.md:L42]``, one per block, without a model: the block
  is of a kind reports/snippets.py has a rule for, and what can be checked without running it
  holds — Python compiles, YAML parses, every ``trajguard …`` command (in a bash block or a
  workflow's ``run:``) is accepted by trajguard's own argument parser, every ``pip install``
  installs this project with extras pyproject.toml defines (or a package installed here), and
  the README's test command is .ci/run's ``TEST_COMMAND``.
- ``test_the_page_runs_as_shown[README.md-live]``, one per page, against the embedded model:
  all its blocks in order in one temporary folder, as one shell session, by the rules of
  reports/snippets.py (the stand-in venv, the test command not run again); a failure names the
  block's line. The README starts in a copy of the repository's ``suites/`` and ``baselines/``
  (what its commands read) and runs every ``trajguard run|nightly|ab`` with ``--runs 1``: it shows
  the demo suite's 20 runs per scenario, minutes on two cores. The tutorial starts in an empty
  folder and runs exactly its commands (its suite asks for 5 runs).

The outputs the pages show are checked in tests/docs/test_generated.py; here the live run's
outputs are checked to have the shape of the committed ones, so a changed output format fails
here until ``python reports/regenerate.py --tutorial`` shows the new one.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))
import pages  # noqa: E402
import snippets  # noqa: E402

from trajguard.cli import build_parser  # noqa: E402

BLOCKS = [
    block
    for page in pages.PAGES
    for block in pages.blocks((REPO / page).read_text(encoding="utf-8"), page)
]
README_RUNS = 1
README_COPIES = ("suites", "baselines")


def _commands(text: str) -> list[list[str]]:
    """The simple commands of a shell text (split at newlines and ``&&``; subshells left out)."""
    found = []
    for line in text.splitlines():
        for segment in line.split(" && "):
            try:
                argv = shlex.split(segment, comments=True)
            except ValueError:
                continue
            argv = snippets.command_words(argv)
            if argv and not argv[0].startswith("("):
                found.append(argv)
    return found


def _check_commands(text: str, where: str) -> int:
    """Parse every trajguard command and check every pip install; how many there were."""
    checked = 0
    for argv in _commands(text):
        if snippets.is_trajguard(argv):
            with pytest.MonkeyPatch.context():
                try:
                    build_parser(argv[1]).parse_args(argv[1:])
                except SystemExit as exit_:
                    pytest.fail(f"{where}: trajguard rejects {shlex.join(argv)} (exit {exit_})")
            checked += 1
        elif Path(argv[0]).name in ("pip", "pip3") and argv[1:2] == ["install"]:
            snippets.check_install(argv, where)
            checked += 1
    return checked


@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
def test_the_block_follows_its_rule(block: pages.Block) -> None:
    assert block.lang in ("bash", "python", "yaml", "text"), (
        f"{block.id}: a {block.lang or 'plain'!r} block, which no rule of reports/snippets.py runs"
    )
    if block.lang == "text":
        assert block.generated is not None, f"{block.id}: output that is not generated"
    elif block.lang == "python":
        compile(block.text, block.id, "exec")
    elif block.lang == "yaml":
        document = yaml.safe_load(block.text)
        assert isinstance(document, dict), block.id
        if block.options.get("file", "").startswith(".github/workflows/"):
            steps = [step for job in document["jobs"].values() for step in job["steps"]]
            runs = "\n".join(step["run"] for step in steps if "run" in step)
            assert _check_commands(runs, block.id) >= 2, f"{block.id}: no install or trajguard"
    else:
        lines = block.text.splitlines()
        if snippets.test_command() in lines:
            return  # the README's test command: tests/test_readme.py checks it is CI's
        assert _commands(block.text), f"{block.id}: runs no command"
        _check_commands(block.text, block.id)


def test_the_readme_shows_the_test_command_in_a_bash_block() -> None:
    readme = [b for b in BLOCKS if b.page == "README.md" and b.lang == "bash"]
    assert any(snippets.test_command() in b.text.splitlines() for b in readme)


def test_a_block_of_no_known_kind_is_refused(tmp_path: Path) -> None:
    block = pages.Block(page="x.md", line=3, lang="console", text="$ trajguard --help\n")
    with pytest.raises(snippets.SnippetError, match=r"x\.md:L3: a 'console' block"):
        snippets.Session(cwd=tmp_path).run(block)


def test_an_install_of_an_unknown_extra_is_refused() -> None:
    argv = ["pip", "install", "-e", ".[local,gpu]"]
    with pytest.raises(snippets.SnippetError, match=r"\['gpu'\] are not in pyproject"):
        snippets.check_install(argv, "x.md:L1")


def test_a_block_that_fails_names_its_line_and_output(tmp_path: Path) -> None:
    block = pages.Block(page="x.md", line=7, lang="bash", text="echo before\nfalse\necho after\n")
    with pytest.raises(snippets.SnippetError, match=r"(?s)x\.md:L7: exit 1.*before") as error:
        snippets.Session(cwd=tmp_path).run(block)
    assert "after" not in str(error.value).split("its output")[1]


def test_the_session_keeps_the_folder_and_the_environment(tmp_path: Path) -> None:
    session = snippets.Session(cwd=tmp_path)
    first = "mkdir inner && cd inner\nexport TUTORIAL_VALUE=42\n"
    session.run(pages.Block(page="x.md", line=1, lang="bash", text=first))
    step = session.run(
        pages.Block(page="x.md", line=5, lang="bash", text='echo "$PWD $TUTORIAL_VALUE"\n')
    )
    assert step.output.strip() == f"{tmp_path.resolve() / 'inner'} 42"


def _shape(text: str) -> str:
    """A line with what differs between two real runs masked: numbers, parenthesised counts,
    durations (``47 s`` or ``1 min 24 s``), the nightly's verdict."""
    text = re.sub(r"^verdict: [a-z ]+", "verdict: V", re.sub(r" \([^)]*\)", "", text))
    text = re.sub(r"(\d+ min )?\d+(\.\d+)? s\b", "T", text)
    text = re.sub(r"─+", "─", re.sub(r" {2,}", " ", text))  # a table's widths follow its values
    return re.sub(r"\d+(\.\d+)?", "#", text)


def _outputs(page: str, steps: list[snippets.Step]) -> dict[str, str]:
    text = (REPO / page).read_text(encoding="utf-8")
    found = {}
    for name, line in pages.regions(text):
        above = [s for s in steps if s.action == "ran" and s.block.line < line]
        if name.startswith("output-") and above:
            found[name] = above[-1].output
    return found


def _readme_checks(root: Path, steps: list[snippets.Step]) -> None:
    nights = sorted(root.glob("reports/*/report.md"))
    assert nights, "the main job wrote no report"
    pages.report_excerpt(nights[0].read_text(encoding="utf-8"))  # the format the page shows
    assert (root / "baselines" / "mine" / "manifest.json").is_file()
    ab = sorted(root.glob("reports/*-ab-base-terse/ab.md"))
    assert ab, "trajguard ab wrote no report"
    pages.ab_excerpt(ab[0].read_text(encoding="utf-8"))
    golden = root / "golden" / "test_multiply" / "test_multiply.json"
    cassette = root / "cassettes" / "test_multiply" / "test_multiply.json"
    assert golden.is_file() and cassette.is_file(), sorted(p.name for p in root.iterdir())
    replay = next(s for s in steps if "test_multiply.py" in s.output and " passed" in s.output)
    assert "1 passed" in replay.output


def _tutorial_checks(start: Path, steps: list[snippets.Step]) -> None:
    root = start / "my-agent"
    assert (root / "baselines" / "capitals" / "manifest.json").is_file()
    reports = sorted(root.glob("reports/*/report.md"))
    assert len(reports) == 1, reports
    live = pages.report_excerpt(reports[0].read_text(encoding="utf-8"))
    shown = pages.contents(REPO, ["tutorial-report"])["tutorial-report"]
    table = [line for line in shown.splitlines() if line.startswith("| scenario |")]
    assert table and table[0] in live.splitlines(), "the report's table has changed: regenerate"
    committed = pages.contents(REPO, pages.generated_names((REPO / pages.PAGES[1]).read_text()))
    outputs = _outputs(pages.PAGES[1], steps)
    assert sorted(outputs) == sorted(n for n in committed if n.startswith("output-"))
    for name, output in outputs.items():
        shown = committed[name].splitlines()[1:-1]  # inside the ```text fence
        printed = output.strip().splitlines()
        # the last line (the summary, the table's end), and the first start-up step if any:
        # what the other lines say differs from run to run (which runs passed)
        for index in (-1, 0) if shown[0].startswith("importing") else (-1,):
            assert _shape(printed[index]) == _shape(shown[index]), (
                f"{name}: the page shows {shown[index]!r}, the command printed "
                f"{printed[index]!r}: python reports/regenerate.py --tutorial"
            )


@pytest.mark.live
@pytest.mark.parametrize("page", pages.PAGES, ids=[f"{page}-live" for page in pages.PAGES])
def test_the_page_runs_as_shown(page: str, tmp_path: Path) -> None:
    blocks = [block for block in BLOCKS if block.page == page]
    start = tmp_path / "reader"
    start.mkdir()
    if page == "README.md":
        for name in README_COPIES:
            shutil.copytree(REPO / name, start / name)
        session = snippets.Session(cwd=start, runs=README_RUNS)
    else:
        session = snippets.Session(cwd=start)
    steps = snippets.run_page(blocks, session)
    assert [s.block.line for s in steps] == [b.line for b in blocks]
    ran = [s for s in steps if s.action == "ran"]
    assert ran, f"{page}: no block ran"
    for step in ran:
        assert "Traceback" not in step.output, f"{step.block.id}:\n{step.output[-3000:]}"
        assert "\\x0a" not in step.output, f"{step.block.id}: a newline printed escaped"
    if page == "README.md":
        _readme_checks(start, steps)
    else:
        _tutorial_checks(start, steps)
