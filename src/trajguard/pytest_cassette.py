"""pytest integration of cassettes: the ``llm_cassette`` fixture and ``--llm-record-mode``.

A standalone pytest plugin module (its own ``pytest_addoption``, ``pytest_configure`` and report
hooks), registered by :mod:`trajguard.pytest_plugin`. It imports only pytest and the standard
library at load time; trajguard's capture code is imported when a test first uses the fixture.

Record modes, as in pytest-recording:

* ``none`` (default, CI): replay only; a missing cassette fails, naming the file and the command
  that records it;
* ``once``: record when the cassette is missing, replay it otherwise;
* ``all``: always call the real model and overwrite the cassette.

Which setting wins: ``--llm-record-mode`` when given; otherwise ``--record-mode``. When
pytest-recording is installed it owns ``--record-mode`` (registering it twice is an error), so
trajguard reads that value: ``new_episodes`` acts as ``once`` (record what is missing, never touch
an existing cassette: positional replay cannot append episodes) and ``rewrite`` as ``all``.

A recording is saved when the test passes. A failing recording never overwrites the cassette; it
is written under pytest's temporary directory instead, and the report names the file.

While recording, the agent is handed every response exactly as the replay will return it, i.e.
after redaction: a ``trajguard_redact`` pattern that matches what the model said makes the
recording run see ``[REDACTED]`` as well. A recorded run and its replay therefore give the same
trajectory, and ``--llm-record-mode=once --golden-update`` writes the golden the next plain run
compares with (with no redacted secret in it).

The request parameters of the model (``llm_cassette.model("local/smollm2",
extra_params={"top_p": 0.9})``) are part of every recorded request, so changing them is request
drift; endpoints, timeouts, retries and credentials are not (they are never stored).

The commands printed to record or re-record a test carry the trajguard settings given on the
command line (``-o trajguard_cassette_dir=…``, ``-o trajguard_redact=…``, ``--golden-dir``), so
they write where, and redact what, the failing run read. A run given an ini file with ``-c`` read
all of them from that file: the command then repeats every one of them, as the golden plugin
repeats its ``--golden-dir``.

A cassette belongs to one test of the session. Its file name, like a golden's, is made from the
test's name without its class (``TestA::test_x`` → ``cassettes/<module>/test_x.json``), so that a
test's cassette and golden keep parallel paths; a second test that maps to a cassette already
used in the session (``TestB::test_x``, or ids that clean alike) fails, naming both tests, instead
of recording over, or replaying, the other test's cassette.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import weakref
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trajguard.capture.cassette import Redactor
    from trajguard.capture.replay import RecordingModel, ReplayModel
    from trajguard.capture.types import ChatModel

__all__ = ["RECORD_MODES", "LLMCassette", "add_options", "llm_cassette", "resolve_record_mode"]

RECORD_MODES = ("none", "once", "all")
# pytest-recording's values, mapped to ours (see the module docstring).
_PYTEST_RECORDING_MODES = {
    "none": "none",
    "once": "once",
    "new_episodes": "once",
    "all": "all",
    "rewrite": "all",
}
_DEFAULT_MODEL = "local/smollm2"  # trajguard.capture.llm.DEFAULT_MODEL, without importing it

_REGISTERED: weakref.WeakSet[pytest.Parser] = weakref.WeakSet()


_CARRIED_INI = ("trajguard_cassette_dir", "trajguard_redact", "trajguard_golden_dir")
"""ini settings that a printed command repeats when the run got them from ``-o``."""
_GOLDEN_DIR_INI = "trajguard_golden_dir"  # registered by trajguard.pytest_plugin


@dataclass(frozen=True)
class _Settings:
    mode: str
    cassette_dir: str
    redact: tuple[str, ...]
    carried: tuple[str, ...] = ()
    """Command-line options the printed record command repeats, shell-quoted."""


_SETTINGS = pytest.StashKey[_Settings]()
_SAVED = pytest.StashKey[list[tuple[str, Path]]]()
_STATE = pytest.StashKey["LLMCassette"]()
_CALL_PASSED = pytest.StashKey[bool]()
# Every cassette file this session has used, and the test (node id) it belongs to.
_OWNERS = pytest.StashKey[dict[str, str]]()


def add_options(parser: pytest.Parser) -> None:
    """Register the cassette options; calling it again for the same parser does nothing."""
    if parser in _REGISTERED:
        return
    _REGISTERED.add(parser)
    group = parser.getgroup("trajguard", "trajguard: golden trajectories")
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


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    mode = resolve_record_mode(
        config.getoption("trajguard_record_mode", None), config.getoption("record_mode", None)
    )
    patterns = tuple(str(p) for p in config.getini("trajguard_redact"))
    for pattern in patterns:
        _check_pattern(pattern)
    config.stash[_SETTINGS] = _Settings(
        mode=mode,
        cassette_dir=str(config.getini("trajguard_cassette_dir")),
        redact=patterns,
        carried=_carried_options(config),
    )
    config.stash[_SAVED] = []
    config.stash[_OWNERS] = {}


def _carried_options(config: pytest.Config) -> tuple[str, ...]:
    """The trajguard settings given on the command line, as options for a printed command.

    ``-o`` overrides of the trajguard ini settings and ``--golden-dir`` are repeated as given.
    ``-c <ini file>`` sets them all on the command line (a plain ``pytest`` reads another ini
    file): the command then repeats the values this run read, as ``-o`` and ``--golden-dir``
    options, like :mod:`trajguard.pytest_plugin` does for its ``--golden-dir``.
    """
    if config.getoption("inifilename", None) is not None:
        return _ini_file_options(config)
    carried: list[str] = []
    for override in config.getoption("override_ini", None) or ():
        name = str(override).split("=", 1)[0].strip()
        if name in _CARRIED_INI:
            carried.append(f"-o {shlex.quote(str(override))}")
    golden_dir = config.getoption("trajguard_golden_dir", None)
    if golden_dir is not None:
        carried.append(shlex.quote(f"--golden-dir={golden_dir}"))
    return tuple(carried)


def _ini_file_options(config: pytest.Config) -> tuple[str, ...]:
    """Every trajguard setting this run read, for a run given its ini file with ``-c``."""
    cassette_dir = str(config.getini("trajguard_cassette_dir"))
    redact = "\n".join(str(p) for p in config.getini("trajguard_redact"))
    carried = [
        "-o " + shlex.quote(f"trajguard_cassette_dir={cassette_dir}"),
        "-o " + shlex.quote(f"trajguard_redact={redact}"),
    ]
    golden_dir = config.getoption("trajguard_golden_dir", None)
    if golden_dir is None:
        try:
            golden_dir = config.getini(_GOLDEN_DIR_INI)
        except ValueError:  # the golden plugin is not registered
            golden_dir = None
    if golden_dir is not None:
        carried.append(shlex.quote(f"--golden-dir={golden_dir}"))
    return tuple(carried)


def _check_pattern(pattern: str) -> None:
    import re

    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise pytest.UsageError(f"trajguard_redact: invalid pattern {pattern!r}: {exc}") from None
    if compiled.fullmatch(""):
        raise pytest.UsageError(f"trajguard_redact: pattern {pattern!r} matches the empty string")


class LLMCassette:
    """What the ``llm_cassette`` fixture returns: hands out replaying or recording models.

    Attributes:
        mode: the effective record mode (``none``, ``once`` or ``all``).
        path: the test's (first) cassette file.
    """

    def __init__(
        self,
        request: pytest.FixtureRequest,
        settings: _Settings,
        tmp_path_factory: pytest.TempPathFactory,
    ) -> None:
        self._request = request
        self._tmp_path_factory = tmp_path_factory
        self._settings = settings
        self.mode = settings.mode
        self.path = self._path(None)
        self.models: list[RecordingModel | ReplayModel] = []
        self._names: set[str | None] = set()
        self._used: dict[str, str] = {}  # cassette file → the model() call of this test using it

    def __repr__(self) -> str:
        return f"<llm_cassette mode={self.mode} path={str(self.path)!r}>"

    def _path(self, name: str | None) -> Path:
        from trajguard.capture.cassette import cassette_path

        node = self._request.node
        return cassette_path(
            Path(str(node.path)), node.name, name=name, cassette_dir=self._settings.cassette_dir
        )

    def command(self, mode: str) -> str:
        """The command that runs this test in record mode ``mode``.

        It repeats the trajguard settings this run was given on the command line (a cassette
        or golden directory, redaction patterns), so it records where this run replays from.
        """
        parts = ["pytest", shlex.quote(self._request.node.nodeid), f"--llm-record-mode={mode}"]
        if mode != "none":
            parts.append("--golden-update")
        return " ".join([*parts, *self._settings.carried])

    def model(
        self,
        model: str | ChatModel = _DEFAULT_MODEL,
        *,
        name: str | None = None,
        redact: Sequence[str] = (),
        **model_kwargs: Any,
    ) -> ChatModel:
        """A model for the agent under test: a replay of the cassette, or a recording one.

        Args:
            model: a litellm model string (the real model is built as ``LiteLLMModel(model,
                **model_kwargs)`` only when recording) or any ``ChatModel`` to record from.
            name: a second cassette for the same test (``<test>.<name>.json``); models requested
                without a name after the first are numbered ``<test>.2.json`` ...
            redact: further regular expressions to store as ``[REDACTED]`` (added to the ini
                option ``trajguard_redact`` and the built-in patterns). The agent sees the
                responses redacted while recording, too, exactly as they are replayed.
            **model_kwargs: passed to ``LiteLLMModel`` when recording. Its ``extra_params``
                (``top_p``, ``stop``, ``parallel_tool_calls`` …) are part of every recorded
                request, also when replaying: changing one is drift. The others (``api_key``,
                ``api_base``, ``timeout_s``, ``max_retries``, ``backoff_s``) are not stored.
        """
        __tracebackhide__ = True
        from trajguard.capture.cassette import Cassette, Redactor
        from trajguard.capture.replay import RecordingModel, model_params

        if name is None and None in self._names:
            name = str(len(self._names) + 1)
        if name in self._names:
            pytest.fail(f"llm_cassette.model(name={name!r}) was already requested", pytrace=False)
        self._names.add(name)
        path = self._path(name)
        self._claim(path, name)
        try:
            redactor = Redactor((*self._settings.redact, *redact))
        except ValueError as exc:
            pytest.fail(f"llm_cassette: {exc}", pytrace=False)
        wanted = model if isinstance(model, str) else model.model_name
        params = _kwargs_params(model_kwargs) if isinstance(model, str) else model_params(model)
        if self.mode == "all" or (self.mode == "once" and not path.exists()):
            inner = model if not isinstance(model, str) else _litellm_model(model, model_kwargs)
            recorder = RecordingModel(inner, Cassette(path, redactor=redactor), params=params)
            self.models.append(recorder)
            return recorder
        if not path.exists():
            pytest.fail(
                f"LLM cassette missing: {path}\nThe default record mode 'none' only replays. "
                f"Record it from the real model with:\n    {self.command('once')}",
                pytrace=False,
            )
        return self._replay(path, redactor, redactor.text(wanted), params)

    def _claim(self, path: Path, name: str | None) -> None:
        """Register ``path`` as this test's cassette; fail when another test or call uses it."""
        __tracebackhide__ = True
        key = os.path.normcase(str(path))
        if key in self._used:
            pytest.fail(
                f"llm_cassette: {path} is already the cassette of {self._used[key]} of this "
                "test\n  hint: give each model of a test its own name=",
                pytrace=False,
            )
        nodeid: str = self._request.node.nodeid
        owner = self._request.config.stash[_OWNERS].setdefault(key, nodeid)
        if owner != nodeid:
            pytest.fail(
                f"llm_cassette: {path} is already the cassette of {owner}; {nodeid} maps to the "
                "same file (cassette names leave out the test class)\n  hint: rename one of "
                "the tests, or give its model a distinct name= (or parametrize id)",
                pytrace=False,
            )
        self._used[key] = f"model(name={name!r})"

    def _replay(
        self, path: Path, redactor: Redactor, wanted: str, params: dict[str, Any]
    ) -> ReplayModel:
        __tracebackhide__ = True
        from trajguard.capture.cassette import Cassette
        from trajguard.capture.replay import ReplayModel
        from trajguard.errors import CassetteError

        rerecord = f"re-record it: {self.command('all')}"
        try:
            cassette = Cassette.load(path, redactor=redactor)
        except CassetteError as exc:
            if exc.hint is not None:
                exc.hint = rerecord
            pytest.fail(str(exc), pytrace=False)
        if cassette.model_name != wanted:
            pytest.fail(
                f"{path}: cassette recorded from {cassette.model_name!r}, the test now asks "
                f"for {wanted!r}\n  hint: {rerecord}",
                pytrace=False,
            )
        replay = ReplayModel(cassette, params=params, rerecord_hint=rerecord)
        self.models.append(replay)
        return replay

    def _cassette_errors(self) -> list[str]:
        from trajguard.capture.replay import ReplayModel

        return [str(error) for m in self.models if isinstance(m, ReplayModel) for error in m.errors]

    def _finish(self, passed: bool) -> None:
        """Teardown: save recordings of a passing test; check that replays were used fully."""
        __tracebackhide__ = True
        from trajguard.capture.replay import RecordingModel
        from trajguard.errors import CassetteError

        if not passed:
            return
        problems = self._cassette_errors()
        if problems:
            pytest.fail(
                "the test passed, but replay raised (and the agent swallowed):\n"
                + "\n".join(problems),
                pytrace=False,
            )
        for m in self.models:
            if isinstance(m, RecordingModel):
                existed = m.cassette.path.exists()
                try:
                    m.save()
                except CassetteError as exc:
                    pytest.fail(str(exc), pytrace=False)
                saved = self._request.config.stash[_SAVED]
                saved.append(("updated" if existed else "created", m.cassette.path))
            elif m.unused:
                recorded = len(m.cassette.interactions)
                pytest.fail(
                    f"{m.cassette.path}: the run made {m.calls} of {recorded} recorded model "
                    f"calls; {m.unused} were never replayed\n  hint: if the agent now needs "
                    f"fewer calls, re-record it: {self.command('all')}",
                    pytrace=False,
                )

    def _keep_failed_recordings(self) -> list[str]:
        """A failed test's recordings go to pytest's temp dir, never over the cassette."""
        from trajguard.capture.replay import RecordingModel
        from trajguard.errors import CassetteError

        notes = []
        base = self._tmp_path_factory.getbasetemp()
        for m in self.models:
            if not isinstance(m, RecordingModel):
                continue
            kept = base / "trajguard-cassettes" / m.cassette.path.name
            try:
                cassette = m.finish()
            except CassetteError as exc:
                notes.append(str(exc))
                continue
            cassette.path, target = kept, cassette.path
            cassette.save()
            cassette.path = target
            notes.append(f"the test failed: {target} was not written; recording kept at {kept}")
        return notes


def _kwargs_params(model_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The request parameters of ``LiteLLMModel(model, **model_kwargs)``, before filtering.

    Its ``extra_params`` and any keyword it does not know; its own settings (``api_key``,
    ``api_base``, ``timeout_s`` …) are dropped by ``stored_params``.
    """
    extra = model_kwargs.get("extra_params") or {}
    others = {k: v for k, v in model_kwargs.items() if k != "extra_params"}
    return {**others, **extra}


def _litellm_model(model: str, kwargs: dict[str, Any]) -> ChatModel:
    from trajguard.capture.llm import LiteLLMModel

    return LiteLLMModel(model, **kwargs)


@pytest.fixture
def llm_cassette(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LLMCassette]:
    """Models for frozen tests: replayed from ``cassettes/<module>/<test>.json``, or recorded.

    ``llm_cassette.model()`` returns a ``ChatModel`` to hand to the agent; see
    :class:`LLMCassette`. Works with ``golden_trajectory`` in the same test::

        async def test_weather(llm_cassette, golden_trajectory):
            result = await run(llm_cassette.model(), "What is the weather in Paris?")
            golden_trajectory(result.trajectory)
    """
    state = LLMCassette(request, request.config.stash[_SETTINGS], tmp_path_factory)
    request.node.stash[_STATE] = state
    yield state
    if state.models and _CALL_PASSED not in request.node.stash:
        pytest.fail(
            "llm_cassette: the trajguard.pytest_cassette hooks are not registered, so the test "
            "outcome is unknown and nothing was saved; register the module as a plugin "
            "(pytest_plugins = ['trajguard.pytest_cassette']), not only its fixture",
            pytrace=False,
        )
    state._finish(request.node.stash[_CALL_PASSED] if state.models else False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "call" and _STATE in item.stash:
        state = item.stash[_STATE]
        item.stash[_CALL_PASSED] = bool(report.passed)
        if report.failed:
            shown = str(report.longrepr)
            errors = [e for e in state._cassette_errors() if e not in shown]  # swallowed ones
            notes = errors + state._keep_failed_recordings()
            if notes:
                report.sections.append(("trajguard cassette", "\n".join(notes)))
    return report


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    saved = config.stash.get(_SAVED, [])
    if not saved:
        return
    rootdir = Path(str(config.rootpath))
    terminalreporter.section("trajguard LLM cassettes")
    for status, path in saved:
        try:
            shown: Path = path.relative_to(rootdir)
        except ValueError:
            shown = path
        terminalreporter.write_line(f"{status}: {shown}")
    terminalreporter.write_line(
        f"{len(saved)} recorded: review them (and their goldens) in the diff before committing"
    )
