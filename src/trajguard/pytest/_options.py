"""The plugin's options and ini settings, and which one wins.

Settings, highest precedence first: the command-line option, then the ini option. Record modes
are those of pytest-recording:

* ``none`` (default, CI): replay only; a missing cassette fails, naming the file and the command
  that records it;
* ``once``: record when the cassette is missing, replay it otherwise;
* ``all``: always call the real model and overwrite the cassette.

``--llm-record-mode`` wins when given; otherwise ``--record-mode``. When pytest-recording is
installed it owns ``--record-mode`` (registering it twice is an error), so trajguard reads that
value: ``new_episodes`` acts as ``once`` (record what is missing, never touch an existing
cassette: positional replay cannot append episodes) and ``rewrite`` as ``all``.

The commands printed to record, re-record or update carry the trajguard settings given on the
command line (``-o trajguard_cassette_dir=…``, ``-o trajguard_redact=…``, ``--golden-dir``), so
they write where, and redact what, the failing run read. A run given an ini file with ``-c``
read all of them from that file: the command then repeats every one of them.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from dataclasses import dataclass

import pytest

__all__ = ["RECORD_MODES", "Settings", "add_options", "read_settings", "resolve_record_mode"]

RECORD_MODES = ("none", "once", "all")
_PYTEST_RECORDING_MODES = {
    "none": "none",
    "once": "once",
    "new_episodes": "once",
    "all": "all",
    "rewrite": "all",
}
_CARRIED_INI = ("trajguard_cassette_dir", "trajguard_redact", "trajguard_golden_dir")
"""ini settings that a printed command repeats when the run got them from ``-o``."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Every plugin setting, resolved once per session.

    Attributes:
        golden_update: ``--golden-update``: write missing goldens, rewrite differing ones.
        golden_dir: where goldens live, relative to each test file.
        golden_dir_given: the golden directory came from the command line (or ``-c``).
        report_unused: ``--golden-unused``: list (with ``--golden-update``: delete) the goldens
            and cassettes no test used.
        record_mode: the effective cassette record mode.
        cassette_dir: where cassettes live, relative to each test file.
        redact: patterns stored as ``[REDACTED]`` in cassettes.
        carried: command-line options a printed record command repeats, shell-quoted.
    """

    golden_update: bool
    golden_dir: str
    golden_dir_given: bool
    report_unused: bool
    record_mode: str
    cassette_dir: str
    redact: tuple[str, ...]
    carried: tuple[str, ...] = ()


def add_options(parser: pytest.Parser) -> None:
    """Register every option in one group, with a common prefix and explicit ``dest``."""
    group = parser.getgroup("trajguard", "trajguard: golden trajectories and LLM cassettes")
    group.addoption(
        "--golden-update",
        action="store_true",
        dest="trajguard_golden_update",
        default=False,
        help="write missing golden trajectory files and rewrite those that differ",
    )
    group.addoption(
        "--golden-dir",
        action="store",
        dest="trajguard_golden_dir",
        default=None,
        help="directory (relative to each test file) holding golden files; default 'golden'",
    )
    group.addoption(
        "--golden-unused",
        action="store_true",
        dest="trajguard_golden_unused",
        default=False,
        help="list the golden files and cassettes no test used; with --golden-update, delete them",
    )
    if importlib.util.find_spec("pytest_recording") is None:
        group.addoption(
            "--record-mode",
            action="store",
            dest="record_mode",
            default=None,
            help="LLM cassettes: none (replay only, default), once (record missing), all "
            "(re-record). With pytest-recording installed, its option is read instead.",
        )
    group.addoption(
        "--llm-record-mode",
        action="store",
        dest="trajguard_record_mode",
        default=None,
        help="record mode of LLM cassettes (none, once, all); overrides --record-mode",
    )
    parser.addini(
        "trajguard_golden_dir",
        "directory (relative to each test file) holding golden trajectory files",
        default="golden",
    )
    parser.addini(
        "trajguard_cassette_dir",
        "directory (relative to each test file) holding LLM cassettes",
        default="cassettes",
    )
    parser.addini(
        "trajguard_redact",
        "regular expressions whose matches are stored as [REDACTED] in LLM cassettes",
        type="linelist",
        default=[],
    )


def resolve_record_mode(llm_record_mode: str | None, record_mode: str | None) -> str:
    """The effective record mode from ``--llm-record-mode`` and ``--record-mode``.

    Raises:
        pytest.UsageError: a value that is not a record mode (the message lists the allowed ones).
    """
    if llm_record_mode is not None:
        if llm_record_mode not in RECORD_MODES:
            raise pytest.UsageError(
                f"--llm-record-mode must be one of {', '.join(RECORD_MODES)}; "
                f"got {llm_record_mode!r}"
            )
        return llm_record_mode
    if record_mode is None:
        return "none"
    if record_mode not in _PYTEST_RECORDING_MODES:
        raise pytest.UsageError(
            f"--record-mode must be one of {', '.join(_PYTEST_RECORDING_MODES)}; "
            f"got {record_mode!r}"
        )
    return _PYTEST_RECORDING_MODES[record_mode]


def _check_pattern(pattern: str) -> None:
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise pytest.UsageError(f"trajguard_redact: invalid pattern {pattern!r}: {exc}") from None
    if compiled.fullmatch(""):
        raise pytest.UsageError(f"trajguard_redact: pattern {pattern!r} matches the empty string")


def _golden_dir_given(config: pytest.Config) -> bool:
    """Whether the golden dir came from the command line rather than the ini file found.

    ``--golden-dir``, ``-o trajguard_golden_dir=...`` and ``-c <ini file>`` all set it there; a
    printed command that left them out would write the golden to another directory.
    """
    if config.getoption("trajguard_golden_dir") is not None:
        return True
    if config.getoption("inifilename", None) is not None:
        return True
    overrides = config.getoption("override_ini", None) or []
    return any(o.split("=", 1)[0].strip() == "trajguard_golden_dir" for o in overrides)


def _carried_options(config: pytest.Config, golden_dir: str) -> tuple[str, ...]:
    """The trajguard settings given on the command line, as options for a printed command.

    ``-o`` overrides of the trajguard ini settings and ``--golden-dir`` are repeated as given.
    ``-c <ini file>`` sets them all on the command line (a plain ``pytest`` reads another ini
    file): the command then repeats the values this run read.
    """
    if config.getoption("inifilename", None) is not None:
        redact = "\n".join(str(p) for p in config.getini("trajguard_redact"))
        return (
            "-o "
            + shlex.quote(f"trajguard_cassette_dir={config.getini('trajguard_cassette_dir')}"),
            "-o " + shlex.quote(f"trajguard_redact={redact}"),
            shlex.quote(f"--golden-dir={golden_dir}"),
        )
    carried: list[str] = []
    for override in config.getoption("override_ini", None) or ():
        name = str(override).split("=", 1)[0].strip()
        if name in _CARRIED_INI:
            carried.append(f"-o {shlex.quote(str(override))}")
    given = config.getoption("trajguard_golden_dir", None)
    if given is not None:
        carried.append(shlex.quote(f"--golden-dir={given}"))
    return tuple(carried)


def read_settings(config: pytest.Config) -> Settings:
    """The session's settings (``pytest.UsageError`` for a bad record mode or pattern)."""
    mode = resolve_record_mode(
        config.getoption("trajguard_record_mode", None), config.getoption("record_mode", None)
    )
    patterns = tuple(str(p) for p in config.getini("trajguard_redact"))
    for pattern in patterns:
        _check_pattern(pattern)
    option = config.getoption("trajguard_golden_dir")
    golden_dir = str(option if option is not None else config.getini("trajguard_golden_dir"))
    cassette_dir = str(config.getini("trajguard_cassette_dir"))
    if golden_dir == cassette_dir:
        raise pytest.UsageError(
            f"trajguard: goldens and cassettes would share the directory {golden_dir!r} (a "
            "test's golden and its cassette have the same file name); give them different "
            "directories (--golden-dir, or the ini options trajguard_golden_dir and "
            "trajguard_cassette_dir)"
        )
    return Settings(
        golden_update=bool(config.getoption("trajguard_golden_update")),
        golden_dir=golden_dir,
        golden_dir_given=_golden_dir_given(config),
        report_unused=bool(config.getoption("trajguard_golden_unused")),
        record_mode=mode,
        cassette_dir=cassette_dir,
        redact=patterns,
        carried=_carried_options(config, golden_dir),
    )
