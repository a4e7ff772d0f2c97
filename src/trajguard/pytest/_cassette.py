"""The ``llm_cassette`` fixture's object: models that replay a test's cassette, or record it.

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

A cassette belongs to one test of the session. Its file name, like a golden's, is made from the
test's name without its class (``TestA::test_x`` → ``cassettes/<module>/test_x.json``), so that a
test's cassette and golden keep parallel paths; a second test that maps to a cassette already
used in the session (``TestB::test_x``, or ids that clean alike) fails, naming both tests, instead
of recording over, or replaying, the other test's cassette.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from trajguard.pytest._session import TrajguardSession, Written

if TYPE_CHECKING:
    from trajguard.capture import ChatModel, RecordingModel, Redactor, ReplayModel

__all__ = ["DEFAULT_MODEL", "LLMCassette"]

DEFAULT_MODEL = "local/smollm2"  # trajguard.capture.DEFAULT_MODEL, without importing it


class LLMCassette:
    """What the ``llm_cassette`` fixture returns: hands out replaying or recording models.

    Attributes:
        mode: the effective record mode (``none``, ``once`` or ``all``).
        path: the test's (first) cassette file.
    """

    def __init__(
        self,
        request: pytest.FixtureRequest,
        session: TrajguardSession,
        tmp_path_factory: pytest.TempPathFactory,
    ) -> None:
        self._request = request
        self._tmp_path_factory = tmp_path_factory
        self._session = session
        self._settings = session.settings
        self.mode = session.settings.record_mode
        self.path = self._path(None)
        self.models: list[RecordingModel | ReplayModel] = []
        self._names: set[str | None] = set()
        self._used: dict[str, str] = {}  # cassette file → the model() call of this test using it

    def __repr__(self) -> str:
        return f"<llm_cassette mode={self.mode} path={str(self.path)!r}>"

    def _path(self, name: str | None) -> Path:
        from trajguard.capture import cassette_path

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
        model: str | ChatModel = DEFAULT_MODEL,
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
        from trajguard.capture import Cassette, RecordingModel, Redactor, model_params

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
        owner = self._session.claim(path, nodeid)
        if owner is not None:
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
        from trajguard.capture import Cassette, ReplayModel
        from trajguard.errors import CassetteError

        rerecord = f"re-record it: {self.command('all')}"
        unreadable: str | None = None
        try:
            cassette = Cassette.load(path, redactor=redactor)
        except CassetteError as exc:
            if exc.hint is not None:
                exc.hint = rerecord
            unreadable = str(exc)
        if unreadable is not None:  # failed outside the handler: no "during handling of…"
            pytest.fail(unreadable, pytrace=False)
        if cassette.model_name != wanted:
            pytest.fail(
                f"{path}: cassette recorded from {cassette.model_name!r}, the test now asks "
                f"for {wanted!r}\n  hint: {rerecord}",
                pytrace=False,
            )
        replay = ReplayModel(cassette, params=params, rerecord_hint=rerecord)
        self.models.append(replay)
        return replay

    def cassette_errors(self) -> list[str]:
        """Errors replay raised during the test (the agent may have swallowed them)."""
        from trajguard.capture import ReplayModel

        return [str(error) for m in self.models if isinstance(m, ReplayModel) for error in m.errors]

    def finish(self, passed: bool) -> None:
        """Teardown: save recordings of a passing test; check that replays were used fully."""
        __tracebackhide__ = True
        from trajguard.capture import RecordingModel
        from trajguard.errors import CassetteError

        if not passed:
            return
        problems = self.cassette_errors()
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
                self._session.written.append(
                    Written(
                        kind="cassette",
                        status="updated" if existed else "created",
                        path=m.cassette.path,
                    )
                )
            elif m.unused:
                recorded = len(m.cassette.interactions)
                pytest.fail(
                    f"{m.cassette.path}: the run made {m.calls} of {recorded} recorded model "
                    f"calls; {m.unused} were never replayed\n  hint: if the agent now needs "
                    f"fewer calls, re-record it: {self.command('all')}",
                    pytrace=False,
                )

    def keep_failed_recordings(self) -> list[str]:
        """A failed test's recordings go to pytest's temp dir, never over the cassette."""
        from trajguard.capture import RecordingModel
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
    from trajguard.capture import LiteLLMModel

    return LiteLLMModel(model, **kwargs)
