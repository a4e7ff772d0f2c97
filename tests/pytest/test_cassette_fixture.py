"""The ``llm_cassette`` fixture and record-mode options, run through ``pytester``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

# Imported here once: pytester restores sys.modules after every in-process run, so modules first
# imported inside a run would be imported again by each of the ~40 runs below.
import trajguard.pytest._cassette  # noqa: F401

pytest_plugins = ["pytester"]

CASSETTE = Path("cassettes/test_agent/test_run.json")

# A scripted model and a two-call "agent" in the generated test module. QUESTION and CALLS are
# edited by individual tests to provoke drift and exhaustion; SEEN is the question as the answers
# quote it to the agent (redacted, if a pattern matches it).
TEST_MODULE = """
import asyncio

from trajguard.capture import LLMResponse, Usage

QUESTION = {question!r}
SEEN = {seen!r}
CALLS = {calls}
RECORDED_WITH = []


class Scripted:
    model_name = "fake/scripted"

    def __init__(self):
        self.n = 0

    async def complete(self, messages, *, tools=None, response_format=None,
                       temperature=None, max_tokens=None, seed=None):
        self.n += 1
        RECORDED_WITH.append(self.n)
        return LLMResponse(content=f"answer {{self.n}} to {{messages[-1]['content']}}",
                           finish_reason="stop", usage=Usage(10, self.n), model="scripted-v1")


async def agent(model):
    answers = []
    for i in range(CALLS):
        response = await model.complete([{{"role": "user", "content": f"{{QUESTION}} #{{i}}"}}],
                                        seed=1234 + i)
        answers.append(response.content)
    return answers


def test_run(llm_cassette):
    model = llm_cassette.model(Scripted())
    answers = asyncio.run(agent(model))
    assert answers == [f"answer {{i + 1}} to {{SEEN}} #{{i}}" for i in range(CALLS)]
    assert model.model_name == "fake/scripted"
    {extra}
"""


def write_test(
    pytester: pytest.Pytester,
    *,
    question: str = "2+2?",
    calls: int = 2,
    extra: str = "",
    seen: str | None = None,
) -> None:
    pytester.makepyfile(test_agent=module(question=question, calls=calls, extra=extra, seen=seen))


def module(
    *, question: str = "2+2?", calls: int = 2, extra: str = "", seen: str | None = None
) -> str:
    """The generated test module's text."""
    seen = question if seen is None else seen
    return TEST_MODULE.format(question=question, seen=seen, calls=calls, extra=extra or "pass")


# The generated tests need neither plugin; hypothesis alone costs a second per in-process run.
INI = "[pytest]\naddopts = -p no:cacheprovider -p no:asyncio -p no:hypothesispytest\n"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(INI)
    return pytester


def tree(root: Path) -> list[str]:
    """Every file under ``root`` except bytecode caches."""
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


BASE_FILES = ["test_agent.py", "tox.ini"]


def test_none_mode_with_missing_cassette_fails_naming_file_and_command(project):
    write_test(project)
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*LLM cassette missing: {project.path / CASSETTE}",
            "*pytest test_agent.py::test_run --llm-record-mode=once --golden-update",
        ]
    )
    assert tree(project.path) == BASE_FILES


def test_once_records_then_replays(project):
    write_test(project)
    result = project.runpytest("--llm-record-mode=once")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*trajguard LLM cassettes*", f"created: {CASSETTE}"])
    assert tree(project.path) == sorted([*BASE_FILES, str(CASSETTE)])
    data = json.loads((project.path / CASSETTE).read_text())
    assert data["model_name"] == "fake/scripted"
    assert [i["response"]["content"] for i in data["interactions"]] == [
        "answer 1 to 2+2? #0",
        "answer 2 to 2+2? #1",
    ]
    recorded = (project.path / CASSETTE).read_text()

    # the scripted model would now answer differently: only a replay can pass
    write_test(project, extra="assert RECORDED_WITH == []")
    for args in ([], ["--llm-record-mode=once"], ["--record-mode=none"]):
        project.runpytest(*args).assert_outcomes(passed=1)
    assert (project.path / CASSETTE).read_text() == recorded
    assert tree(project.path) == sorted([*BASE_FILES, str(CASSETTE)])


def test_all_rerecords(project):
    write_test(project)
    project.runpytest("--record-mode=once").assert_outcomes(passed=1)
    write_test(project, question="3+3?")
    result = project.runpytest("--record-mode=all")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"updated: {CASSETTE}"])
    assert "3+3?" in (project.path / CASSETTE).read_text()


def test_prompt_edit_on_stale_cassette_fails_with_drift(project):
    write_test(project)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    write_test(project, question="2+3?")
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*request drift at call 1 of 2: messages[[]0] (user) content differs",
            "*recorded: '2+2? #0'",
            "*now:      '2+3? #0'",
            "*if the change is intended, re-record it: pytest test_agent.py::test_run "
            "--llm-record-mode=all --golden-update",
        ]
    )


def test_extra_call_fails_with_script_exhausted(project):
    write_test(project)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    write_test(project, calls=3)
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*ScriptExhausted*call 3 of 2 recorded*"])


def test_fewer_calls_than_recorded_fails_at_teardown(project):
    write_test(project)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    write_test(project, calls=1)
    result = project.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*the run made 1 of 2 recorded model calls; 1 were never replayed*"]
    )


def test_swallowed_replay_error_still_fails(project):
    write_test(project)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    project.makepyfile(
        test_agent="""
        import asyncio

        async def swallow(model):
            try:
                await model.complete([{"role": "user", "content": "something else"}])
            except Exception:
                pass
            # every call takes the next position, also one that raised
            await model.complete([{"role": "user", "content": "2+2? #1"}], seed=5)

        def test_run(llm_cassette):
            model = llm_cassette.model("fake/scripted")
            asyncio.run(swallow(model))
        """
    )
    result = project.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*replay raised (and the agent swallowed)*", "*request drift*"])


def test_failing_recording_does_not_touch_the_cassette(project):
    write_test(project, extra="assert False, 'golden mismatch'")
    result = project.runpytest("--llm-record-mode=all", "--basetemp", str(project.path / ".tmp"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*the test failed: *test_run.json was not written; recording kept*"]
    )
    assert not (project.path / CASSETTE).exists()
    assert (project.path / ".tmp" / "trajguard-cassettes" / "test_run.json").exists()


def test_model_changed_since_recording_fails(project):
    write_test(project)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    project.makepyfile(
        test_agent="""
        def test_run(llm_cassette):
            llm_cassette.model("ollama_chat/qwen2.5:1.5b")
        """
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*cassette recorded from 'fake/scripted', the test now asks for 'ollama_chat/qwen*'"]
    )


def test_ini_redaction_patterns_apply(project):
    project.makeini(INI + "trajguard_redact =\n    CUST-[0-9]+\n")
    # the recording run is handed the answers redacted, exactly as the replay returns them
    question, seen = "balance of CUST-123456?", "balance of [REDACTED]?"
    write_test(project, question=question, seen=seen, extra="assert RECORDED_WITH == [1, 2]")
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    text = (project.path / CASSETTE).read_text()
    assert "CUST-123456" not in text
    assert "balance of [REDACTED]? #0" in text
    write_test(project, question=question, seen=seen, extra="assert RECORDED_WITH == []")
    project.runpytest().assert_outcomes(passed=1)  # the replay gives what the recording saw


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--llm-record-mode=sometimes"],
            "--llm-record-mode must be one of none, once, all; got 'sometimes'",
        ),
        (
            ["--llm-record-mode=rewrite"],
            "--llm-record-mode must be one of none, once, all; got 'rewrite'",
        ),
        (
            ["--record-mode=always"],
            "--record-mode must be one of none, once, new_episodes, all, rewrite; got 'always'",
        ),
    ],
)
def test_bad_record_mode_is_a_usage_error(project, args, message):
    write_test(project)
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_bad_ini_redaction_pattern_is_a_usage_error(project):
    project.makeini(INI + "trajguard_redact = (unclosed\n")
    write_test(project)
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*trajguard_redact: invalid pattern '(unclosed'*"])


def test_with_pytest_recording_installed_its_record_mode_is_read(project):
    """pytest-recording owns --record-mode; trajguard must not register it a second time."""
    project.mkpydir("pytest_recording")
    (project.path / "pytest_recording" / "__init__.py").write_text(
        "def pytest_addoption(parser):\n"
        "    parser.getgroup('recording').addoption(\n"
        "        '--record-mode', dest='record_mode', default='none',\n"
        "        choices=['once', 'new_episodes', 'none', 'all', 'rewrite'])\n"
    )
    project.makeconftest("pytest_plugins = ['pytest_recording']")
    project.syspathinsert()
    write_test(project)
    project.runpytest().assert_outcomes(failed=1)  # none: missing cassette
    project.runpytest("--record-mode=new_episodes").assert_outcomes(passed=1)  # as once
    assert (project.path / CASSETTE).exists()
    write_test(project, question="changed?")
    project.runpytest("--record-mode=new_episodes").assert_outcomes(failed=1)  # replays: drift
    project.runpytest("--record-mode=rewrite").assert_outcomes(passed=1)  # as all
    project.runpytest("--record-mode=new_episodes", "--llm-record-mode=none").assert_outcomes(
        passed=1
    )


def test_two_models_in_one_test_get_two_cassettes(project):
    project.makepyfile(
        test_agent=module(question="q", calls=1)
        + """

def test_two(llm_cassette):
    first = llm_cassette.model(Scripted())
    second = llm_cassette.model(Scripted(), name="judge")
    assert asyncio.run(agent(first)) == asyncio.run(agent(second))
"""
    )
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=2)
    files = tree(project.path)
    assert "cassettes/test_agent/test_two.json" in files
    assert "cassettes/test_agent/test_two.judge.json" in files
    project.runpytest().assert_outcomes(passed=2)


CLASS_TESTS = """

class TestA:
    def test_x(self, llm_cassette):
        model = llm_cassette.model(Scripted())
        assert asyncio.run(agent(model)) == ["answer 1 to q #0"]


class TestB:
    def test_x(self, llm_cassette):
        model = llm_cassette.model(Scripted())
        response = asyncio.run(model.complete([{"role": "user", "content": "not TestA's"}]))
        assert response.content == "answer 1 to not TestA's"
"""


def test_two_tests_sharing_a_cassette_are_refused(project):
    # Like goldens, cassette names leave out the class: both tests map to test_x.json.
    project.makepyfile(test_agent=module(question="q", calls=1) + CLASS_TESTS)
    clash = [
        f"llm_cassette: {project.path / 'cassettes/test_agent/test_x.json'} is already the "
        "cassette of test_agent.py::TestA::test_x; test_agent.py::TestB::test_x maps to the "
        "same file*",
        "*hint: rename one of the tests, or give its model a distinct name=*",
    ]
    result = project.runpytest("--llm-record-mode=once")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["FAILED test_agent.py::TestB::test_x*"])
    result.stdout.fnmatch_lines(clash)
    result.stdout.fnmatch_lines(["created: cassettes/test_agent/test_x.json", "2 recorded: *"])
    recorded = (project.path / "cassettes/test_agent/test_x.json").read_text()
    assert "not TestA's" not in recorded
    # replaying: TestA gets its own cassette back, TestB is refused again (no request drift)
    result = project.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["FAILED test_agent.py::TestB::test_x*"])
    result.stdout.fnmatch_lines(clash)
    assert "request drift" not in result.stdout.str()
    assert (project.path / "cassettes/test_agent/test_x.json").read_text() == recorded


def test_two_models_of_a_test_sharing_a_cassette_are_refused(project):
    project.makepyfile(
        test_agent=module(question="q", calls=1)
        + """

def test_two(llm_cassette):
    llm_cassette.model(Scripted(), name="live run")
    llm_cassette.model(Scripted(), name="live_run")  # cleaned to the same file name
"""
    )
    result = project.runpytest("--llm-record-mode=once")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            f"llm_cassette: {project.path / 'cassettes/test_agent/test_two.live_run.json'} is "
            "already the cassette of model(name='live run') of this test",
            "*hint: give each model of a test its own name=",
        ]
    )


def test_fixture_exposes_path_and_mode(project):
    project.makepyfile(
        test_agent="""
        def test_run(llm_cassette):
            assert llm_cassette.mode == "once"
            assert llm_cassette.path.parts[-3:] == ("cassettes", "test_agent", "test_run.json")
        """
    )
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    assert tree(project.path) == BASE_FILES


def test_cassette_dir_ini_option(project):
    project.makeini(INI + "trajguard_cassette_dir = llm\n")
    write_test(project)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    assert (project.path / "llm" / "test_agent" / "test_run.json").exists()


def test_options_are_listed_in_help(project):
    result = project.runpytest("--help")
    result.stdout.fnmatch_lines(["*--record-mode=*", "*--llm-record-mode=*", "*trajguard_redact*"])


def test_fixture_without_the_hooks_fails_instead_of_silently_not_saving(project):
    project.makeconftest(
        "from trajguard.pytest.plugin import llm_cassette, pytest_addoption, pytest_configure"
    )
    write_test(project)
    # The trajguard entry point registers the whole module; a user who disables it and imports
    # only some names into a conftest gets a clear error, not a silently unsaved cassette.
    result = project.runpytest("-p", "no:trajguard", "--llm-record-mode=once")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*hooks are not registered*nothing was saved*"])
    assert tree(project.path) == sorted(["conftest.py", *BASE_FILES])


# --- redaction: a recorded run and its replay give the same trajectory -------------------------

GOLDEN_MODULE = """
import asyncio

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.capture import LLMResponse, Usage


class Scripted:
    model_name = {model_name!r}

    async def complete(self, messages, **kwargs):
        return LLMResponse(content="host acme-internal-7731", finish_reason="stop",
                           usage=Usage(10, 3), model="scripted-v1")


def test_run(llm_cassette, golden_trajectory):
    agent = ReferenceAgent(AgentConfig(system_prompt="Answer.", tools=[], mode="native"))
    result = asyncio.run(agent.run(llm_cassette.model(Scripted()), "Which host?"))
    golden_trajectory(result.trajectory)
"""


@pytest.mark.parametrize("model_name", ["fake/scripted", "fake/acme-internal-42"])
def test_golden_written_while_recording_matches_the_replay(project, model_name):
    """No secret a pattern catches reaches the golden, and the next plain run passes."""
    project.makeini(INI + "trajguard_redact = acme-internal-\\d+\n")
    project.makepyfile(test_agent=GOLDEN_MODULE.format(model_name=model_name))
    project.runpytest("--llm-record-mode=once", "--golden-update").assert_outcomes(passed=1)
    golden = project.path / "golden" / "test_agent" / "test_run.json"
    for path in (project.path / CASSETTE, golden):
        assert "acme-internal" not in path.read_text()
    assert "host [REDACTED]" in golden.read_text()
    project.runpytest().assert_outcomes(passed=1)


# --- request params: part of the request, except those that cannot change the answer ---------

PARAMS_CONFTEST = """
import pytest

from trajguard.capture import LLMResponse

# stands in for trajguard.pytest._cassette._litellm_model(model, model_kwargs)
class FakeLiteLLM:

    def __init__(self, model, model_kwargs):
        self.model_name = model
        self.extra_params = model_kwargs.get("extra_params") or {}

    async def complete(self, messages, **kwargs):
        return LLMResponse(content="ok", finish_reason="stop", model="m")


@pytest.fixture(autouse=True)
def no_real_model(monkeypatch):
    monkeypatch.setattr("trajguard.pytest._cassette._litellm_model", FakeLiteLLM)
"""

PARAMS_MODULE = """
import asyncio


def test_run(llm_cassette):
    model = llm_cassette.model("openai/gpt-test", {kwargs})
    response = asyncio.run(model.complete([{{"role": "user", "content": "hi"}}], temperature=0))
    assert response.content == "ok"
"""

KEY = "sk-live-abcdefghijklmnopqrstuvwxyz"


def write_params_test(pytester: pytest.Pytester, kwargs: str) -> None:
    pytester.makeconftest(PARAMS_CONFTEST)
    pytester.makepyfile(test_agent=PARAMS_MODULE.format(kwargs=kwargs))


RECORDED_KWARGS = (
    f"api_key={KEY!r}, timeout_s=30, "
    "extra_params={'top_p': 0.9, 'stop': ['END'], 'metadata': {'run': 1}}"
)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ("extra_params={'top_p': 0.5, 'stop': ['END']}", "params: top_p 0.9 -> 0.5"),
        ("extra_params={'top_p': 0.9}", "params: stop ['END'] -> (not sent)"),
        (
            "extra_params={'top_p': 0.9, 'stop': ['END'], 'parallel_tool_calls': False}",
            "params: parallel_tool_calls (not in the recording) -> False",
        ),
    ],
)
def test_changed_model_params_on_a_stale_cassette_fail_with_drift(project, kwargs, message):
    write_params_test(project, RECORDED_KWARGS)
    project.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
    text = (project.path / CASSETTE).read_text()
    assert '"top_p": 0.9' in text
    for unstored in (KEY, "api_key", "timeout", "metadata"):
        assert unstored not in text
    # another key, endpoint, timeout or metadata cannot change the answer: not drift
    write_params_test(
        project,
        "api_key='other', api_base='http://10.0.0.2:8000', timeout_s=5, max_retries=0, "
        "extra_params={'top_p': 0.9, 'stop': ['END'], 'metadata': {'run': 2}, 'timeout': 9}",
    )
    project.runpytest().assert_outcomes(passed=1)
    write_params_test(project, kwargs)
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    pattern = f"*request drift at call 1 of 1: {message}*".replace("[", "[[]")
    result.stdout.fnmatch_lines([pattern])


# --- printed commands carry the settings given on the command line ----------------------------


def test_printed_commands_carry_command_line_settings(project):
    write_test(project)
    args = ("-o", "trajguard_cassette_dir=llm dir", "--golden-dir=gold")
    carried = "-o 'trajguard_cassette_dir=llm dir' --golden-dir=gold"
    result = project.runpytest(*args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [f"*pytest test_agent.py::test_run --llm-record-mode=once --golden-update {carried}"]
    )
    # the printed command records where the failing run looked
    project.runpytest(*args, "--llm-record-mode=once").assert_outcomes(passed=1)
    assert (project.path / "llm dir" / "test_agent" / "test_run.json").exists()
    write_test(project, question="2+3?")
    result = project.runpytest(*args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*if the change is intended, re-record it: pytest test_agent.py::test_run "
            f"--llm-record-mode=all --golden-update {carried}"
        ]
    )
    # a setting from the ini file is read by the printed command anyway: not repeated
    project.makeini(INI + "trajguard_cassette_dir = llm dir\n")
    result = project.runpytest("--golden-dir=gold")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*if the change is intended, re-record it: pytest test_agent.py::test_run "
            "--llm-record-mode=all --golden-update --golden-dir=gold"
        ]
    )


def test_printed_command_of_a_run_given_an_ini_file_records_where_the_run_reads(project):
    # The ini file found without -c points elsewhere and redacts what the model answers.
    project.makeini(INI + "trajguard_cassette_dir = wrong\ntrajguard_redact = answer\n")
    other = "trajguard_cassette_dir = llm dir\ntrajguard_redact = CUST-[0-9]+\n"
    project.makefile(".ini", other=INI + other + "trajguard_golden_dir = gold\n")
    write_test(project)
    result = project.runpytest("-c", "other.ini")
    result.assert_outcomes(failed=1)
    carried = "-o 'trajguard_cassette_dir=llm dir' -o 'trajguard_redact=CUST-[[]0-9]+' "
    result.stdout.fnmatch_lines(
        [
            f"*LLM cassette missing: {project.path / 'llm dir/test_agent/test_run.json'}",
            "*pytest test_agent.py::test_run --llm-record-mode=once --golden-update "
            f"{carried}--golden-dir=gold",
        ]
    )
    printed = next(line for line in result.stdout.lines if "pytest test_agent.py::test_run" in line)
    command = shlex.split(printed.strip())
    assert command[0] == "pytest"
    project.runpytest(*command[1:]).assert_outcomes(passed=1)  # exactly as printed
    assert (project.path / "llm dir" / "test_agent" / "test_run.json").exists()
    assert not (project.path / "wrong").exists()
    project.runpytest("-c", "other.ini").assert_outcomes(passed=1)


def test_a_broken_cassette_names_the_exact_rerecord_command(project):
    write_test(project)
    (project.path / CASSETTE).parent.mkdir(parents=True)
    (project.path / CASSETTE).write_text("{not json")
    result = project.runpytest("-o", "trajguard_redact=CUST-[0-9]+")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*hint: re-record it: pytest test_agent.py::test_run --llm-record-mode=all "
            "--golden-update -o 'trajguard_redact=CUST-[[]0-9]+'"
        ]
    )
