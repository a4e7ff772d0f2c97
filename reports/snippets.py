"""Run a page's code blocks in order, as a reader would, in one folder (issue 27).

tests/docs/test_snippets.py runs README.md and docs/tutorial.md this way against the embedded
model, and ``python reports/regenerate.py --tutorial`` runs the tutorial this way to keep what
its commands printed. The blocks of a page run in order, in one folder, as one shell session:
the folder a block ends in (``cd``) and the environment it exports (``source .venv/bin/activate``)
are the next block's. The rules, one per kind of block:

- ``bash``: run by ``bash -e -o pipefail``; it must exit 0, or with a code its
  ``<!-- snippet: exits=0,1 -->`` line names (the page explains them). Before it runs, three
  rewrites, each of which the block must pass to be run at all:

  - *the install*: ``python3 -m venv DIR`` makes a stand-in ``DIR`` whose ``bin/`` has
    ``activate``, ``python``, ``python3``, ``pytest`` and ``trajguard`` that run the interpreter
    running this code, where trajguard is already installed; a ``pip install`` of this project
    (``-e ".[extras]"`` or ``"trajguard[extras]"``) is checked to name extras pyproject.toml
    defines, and one of another package (``pip install pytest``) to name a package installed
    here; neither is run. Any other use of the stand-in's ``pip`` fails.
  - *the test command*: a line that is .ci/run's ``TEST_COMMAND`` is checked to be it and not run
    (it is the test run this code is part of).
  - *N*: with ``runs=K`` (the README's demo suite takes 20 runs per scenario, minutes on two
    cores), every ``trajguard run``, ``nightly`` and ``ab`` runs ``--runs K``: its ``--runs N`` is
    replaced, or ``--runs K`` added.

- ``python`` and ``yaml`` with ``<!-- snippet: file=NAME -->``: written to ``NAME`` (the page says
  to save it there); a ``python`` block without one runs as ``python -`` and must exit 0; a
  ``yaml`` block without one must parse.
- ``text``: output, only inside a ``<!-- generated:… -->`` region (reports/pages.py); not run.
- anything else (``console``, no language): refused, so no block of a page goes unchecked.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
from pages import Block  # noqa: E402

REPO = HERE.parent
RUN_COMMANDS = ("run", "nightly", "ab")
_TEST_COMMAND = re.compile(r"TEST_COMMAND='([^']+)'")
_DROPPED_ENV = ("GITHUB_STEP_SUMMARY", "TRAJGUARD_STORE", "RAY_ADDRESS", "VIRTUAL_ENV")


class SnippetError(AssertionError):
    """A block broke its rule; the message names the block (``README.md:L42``)."""


@dataclass(frozen=True, kw_only=True)
class Step:
    """What one block did: ``action`` says which rule handled it; ``output`` is what a bash or
    python block printed (stdout and stderr as a terminal interleaves them)."""

    block: Block
    action: str
    returncode: int | None = None
    output: str = ""


def test_command() -> str:
    """.ci/run's ``TEST_COMMAND``: the README's test command, verbatim."""
    found = _TEST_COMMAND.search((REPO / ".ci" / "run").read_text(encoding="utf-8"))
    if found is None:
        raise SnippetError(".ci/run sets no TEST_COMMAND='…'")
    return found.group(1)


def extras() -> set[str]:
    """The optional-dependency groups pyproject.toml defines."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"])


def check_install(argv: list[str], where: str) -> str:
    """What a ``pip install`` line installs, checked instead of run: this project (``-e .`` or
    ``trajguard``, with extras pyproject.toml defines) or packages already installed here."""
    named = [a for a in argv[2:] if not a.startswith("-")]
    if not named:
        raise SnippetError(f"{where}: a pip install of nothing")
    done = []
    for target in named:
        found = re.fullmatch(r"(?P<what>\.|trajguard)(\[(?P<extras>[a-z,]+)\])?", target)
        if found is None:
            try:
                metadata.version(target)
            except metadata.PackageNotFoundError:
                raise SnippetError(
                    f"{where}: pip installs {target!r}, which is not installed "
                    "where the snippets run (add it to an extra)"
                ) from None
            done.append(f"{target} (installed)")
            continue
        wanted = set(filter(None, (found.group("extras") or "").split(",")))
        unknown = wanted - extras()
        if unknown:
            raise SnippetError(f"{where}: extras {sorted(unknown)} are not in pyproject.toml")
        done.append(f"trajguard[{','.join(sorted(wanted))}]")
    return ", ".join(done)


def _with_runs(argv: list[str], runs: int) -> list[str]:
    if "--runs" in argv:
        at = argv.index("--runs")
        return [*argv[: at + 1], str(runs), *argv[at + 2 :]]
    return [*argv, "--runs", str(runs)]


def command_words(argv: list[str]) -> list[str]:
    """``argv`` without the environment assignments before its command (``CMAKE_ARGS=… pip``)."""
    start = 0
    while start < len(argv) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[start]):
        start += 1
    return argv[start:]


def is_trajguard(argv: list[str]) -> bool:
    return bool(argv) and Path(argv[0]).name == "trajguard"


@dataclass
class Session:
    """One reader's shell: a folder, an environment, and the rules above.

    Args:
        cwd: the folder the first block starts in.
        runs: ``--runs`` of every ``trajguard run|nightly|ab`` (None: as the page shows it).
        timeout: seconds one block may take.
    """

    cwd: Path
    runs: int | None = None
    timeout: float = 900.0
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.env:
            self.env = {
                key: value
                for key, value in os.environ.items()
                if key not in _DROPPED_ENV and not key.startswith("PYTEST_")
            }
        # a terminal 100 columns wide: tables print as a reader's would, the same on every machine
        self.env |= {"PYTHONUNBUFFERED": "1", "COLUMNS": "100"}

    def run(self, block: Block) -> Step:
        if block.lang == "text":
            if block.generated is None:
                raise SnippetError(f"{block.id}: a text block outside a generated region")
            return Step(block=block, action="output")
        if block.lang in ("python", "yaml") and "file" in block.options:
            target = self.cwd / block.options["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            return Step(block=block, action=f"wrote {block.options['file']}")
        if block.lang == "yaml":
            yaml.safe_load(block.text)
            return Step(block=block, action="parsed")
        if block.lang == "python":
            return self._shell(
                block, f"python - <<'__TRAJGUARD_PY__'\n{block.text}__TRAJGUARD_PY__\n"
            )
        if block.lang == "bash":
            return self._shell(block, self.rewrite(block))
        raise SnippetError(f"{block.id}: a {block.lang or 'plain'!r} block, which no rule runs")

    def rewrite(self, block: Block) -> str:
        """The bash block as it runs here (the rules of the module docstring)."""
        lines = []
        for number, line in enumerate(block.text.splitlines(), start=block.line + 1):
            where = f"{block.page}:L{number}"
            if line.strip() == test_command():
                lines.append(": the test command, which is this test run")
                continue
            segments = []
            for segment in line.split(" && "):
                try:
                    argv = shlex.split(segment, comments=True)
                except ValueError:
                    segments.append(segment)
                    continue
                segments.append(self._segment(segment, argv, where))
            lines.append(" && ".join(segments))
        return "\n".join(lines) + "\n"

    def _segment(self, segment: str, argv: list[str], where: str) -> str:
        argv = command_words(argv)
        if argv[:3] in (["python3", "-m", "venv"], ["python", "-m", "venv"]) and len(argv) == 4:
            # made where the shell is when it gets there (after a ``cd`` of the same block)
            return shlex.join([sys.executable, str(Path(__file__).resolve()), "stand-in", argv[3]])
        if len(argv) >= 2 and Path(argv[0]).name in ("pip", "pip3") and argv[1] == "install":
            return f": pip install {shlex.quote(check_install(argv, where))}"
        if is_trajguard(argv) and len(argv) > 1 and argv[1] in RUN_COMMANDS and self.runs:
            return shlex.join(_with_runs(argv, self.runs))
        return segment

    def _shell(self, block: Block, script: str) -> Step:
        with tempfile.TemporaryDirectory(prefix="trajguard-snippet-") as folder:
            state = Path(folder)
            trailer = f'trap \'pwd > "{state}/cwd"; env -0 > "{state}/env"\' EXIT\n'
            # the page's own shell text, run as its reader would: the point of this module
            result = subprocess.run(  # noqa: S603
                ["bash", "-e", "-o", "pipefail", "-c", trailer + script],  # noqa: S607
                cwd=self.cwd,
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=self.timeout,
                check=False,
            )
            cwd = (state / "cwd").read_text(encoding="utf-8").strip()
            exported = (state / "env").read_text(encoding="utf-8")
        allowed = {int(code) for code in block.options.get("exits", "0").split(",")}
        if result.returncode not in allowed:
            raise SnippetError(
                f"{block.id}: exit {result.returncode} (the page allows {sorted(allowed)})\n"
                f"--- the block as run:\n{script}--- its output (last 4000 characters):\n"
                f"{result.stdout[-4000:]}"
            )
        self.cwd = Path(cwd)
        pairs = (item.partition("=") for item in exported.split("\0") if item)
        self.env = {key: value for key, _, value in pairs if not key.startswith("BASH_FUNC")}
        return Step(block=block, action="ran", returncode=result.returncode, output=result.stdout)


def stand_in(venv: Path) -> None:
    """A folder that acts as a venv with trajguard installed: the interpreter running this."""
    bin_dir = venv / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    python = shlex.quote(sys.executable)
    scripts = {
        "python": f'exec {python} "$@"',
        "python3": f'exec {python} "$@"',
        "trajguard": f'exec {python} -m trajguard.cli "$@"',
        "pytest": f'exec {python} -m pytest "$@"',
        "pip": 'echo "the snippet tests\' stand-in venv has no pip: $*" >&2; exit 2',
    }
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)
    (bin_dir / "activate").write_text(
        f'export VIRTUAL_ENV={shlex.quote(str(venv))}\nexport PATH="$VIRTUAL_ENV/bin:$PATH"\n',
        encoding="utf-8",
    )


def run_page(blocks: list[Block], session: Session) -> list[Step]:
    """Every block of a page in order; the first that breaks its rule raises SnippetError."""
    return [session.run(block) for block in blocks]


if __name__ == "__main__":  # ``python snippets.py stand-in DIR``: what ``python3 -m venv DIR`` runs
    if sys.argv[1:2] != ["stand-in"] or len(sys.argv) != 3:
        raise SystemExit("usage: snippets.py stand-in DIR")
    stand_in(Path(sys.argv[2]).resolve())
