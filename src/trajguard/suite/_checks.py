"""The checks :func:`~trajguard.suite.load_suite` runs beyond what pydantic validates.

Before validation, :func:`check_raw_criteria` parses each pass criterion so that an error names
the criterion's own line (a pydantic error is explained by :mod:`._error_messages`). After
validation, :func:`check_loaded_suite` checks what the models cannot: unique scenario ids,
reserved variant names, contradictory prompts, overrides the agent kind would ignore, model
strings, prompt files, every ``module:function`` import path (tools are built as the agent will
build them), the tool names the criteria expect, and the programs command agents start.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from trajguard.errors import ImportPathError, SuiteError
from trajguard.suite._conversation import placed_criteria
from trajguard.suite._criteria import parse_criterion
from trajguard.suite._error_messages import CRITERIA_HINT
from trajguard.suite._fault_checks import check_faults
from trajguard.suite._files import read_prompt_text
from trajguard.suite._model_checks import check_models
from trajguard.suite._models import (
    BASE_VARIANT,
    BuiltinAgent,
    CallableAgent,
    CommandAgent,
    Scenario,
    Suite,
    Variant,
)
from trajguard.suite._path_criteria import tool_names as path_tool_names
from trajguard.suite._references import check_executable, import_object, import_tool
from trajguard.suite._yaml_lines import LineMap, dotted

__all__ = ["check_loaded_suite", "check_raw_criteria"]


def check_raw_criteria(data: Mapping[str, Any], path: Path, lines: LineMap) -> list[SuiteError]:
    """The pass criteria that do not parse (checked on the YAML data, before pydantic)."""
    problems: list[SuiteError] = []
    scenarios = data.get("scenarios")
    for index, scenario in enumerate(scenarios if isinstance(scenarios, list) else ()):
        criteria = scenario.get("pass") if isinstance(scenario, Mapping) else None
        for c_index, raw in enumerate(criteria if isinstance(criteria, list) else ()):
            try:
                parse_criterion(raw)
            except ValueError as exc:
                where = ("scenarios", index, "pass", c_index)
                name = scenario.get("id")
                problems.append(
                    SuiteError(
                        f"scenario {name!r}: {exc}",
                        file=path,
                        line=lines.line_of(where),
                        path=dotted(where),
                        hint=CRITERIA_HINT,
                    )
                )
    return problems


def check_loaded_suite(
    suite: Suite,
    path: Path,
    lines: LineMap,
    *,
    check_imports: bool,
    indices: Sequence[int] | None = None,
) -> list[SuiteError]:
    """Every problem the models cannot catch; imports (and tools) only if ``check_imports``.

    ``indices`` maps the suite's scenarios to their positions in the file (when scenarios that
    failed validation were left out of ``suite``), so each problem names its own line.
    """
    fail = _Fail(suite, path, lines, indices)
    _check_unique_ids(suite, fail)
    _check_variants(suite, fail)
    check_models(suite, fail.report)
    before = len(fail.problems)
    _check_prompt_files(suite, fail)
    if len(fail.problems) == before:
        for scenario in suite.scenarios:
            for variant in [BASE_VARIANT, *scenario.variants, *suite.variants]:
                # reads every prompt file now, not mid-batch
                fail.attempt(suite.resolve, scenario.id, variant)
    tools: dict[str, str] = {}
    if check_imports:
        for name, shared in suite.variants.items():
            fail.attempt(_check_tools, shared.tools or (), ("variants", name, "tools"), fail, tools)
        for index, scenario in enumerate(suite.scenarios):
            fail.attempt(_check_imports, scenario, index, fail, tools)

    def tool_names(targets: Sequence[str], where: Where) -> list[str]:
        return _check_tools(targets, where, fail, tools)

    fail.attempt(check_faults, suite, fail, tool_names if check_imports else None)
    return fail.problems


class _Fail:
    """Makes the :class:`SuiteError` of a problem found after validation, with its line."""

    def __init__(
        self, suite: Suite, path: Path, lines: LineMap, indices: Sequence[int] | None = None
    ) -> None:
        self.suite, self.path, self.lines = suite, path, lines
        self.base_dir = path.resolve().parent
        self.indices = indices
        self.problems: list[SuiteError] = []
        self._seen: set[tuple[str | None, str]] = set()

    def report(self, where: Where, message: str, hint: str | None = None) -> None:
        """Record a problem (once) and go on looking for more."""
        self._add(self(where, message, hint))

    def attempt(self, check: Callable[..., object], *args: Any) -> None:
        """Run a check that stops at its first problem; record that problem."""
        try:
            check(*args)
        except SuiteError as exc:
            self._add(exc)
        except _Incomplete:  # its cause is reported already
            pass

    def _add(self, problem: SuiteError) -> None:
        key = (problem.path, problem.message)
        if key not in self._seen:  # a set: a 20,000-row entry may give a problem per row
            self._seen.add(key)
            self.problems.append(problem)

    def __call__(
        self, where: tuple[int | str, ...], message: str, hint: str | None = None
    ) -> SuiteError:
        scenario = None
        if len(where) > 1 and where[0] == "scenarios" and isinstance(where[1], int):
            scenario = self.suite.scenarios[where[1]].id
            if self.indices is not None:
                where = ("scenarios", self.indices[where[1]], *where[2:])
        prefix = f"scenario {scenario!r}: " if scenario else ""
        return SuiteError(
            prefix + message,
            file=self.path,
            line=self.lines.line_of(where),
            path=dotted(where),
            hint=hint,
        )


_BOTH_PROMPTS = "both system_prompt and system_prompt_file are set"
_PROMPT_HINT = "keep one of them: the inline prompt or the file"
# Variant settings each agent kind never sees (callable and command agents get the prompt,
# model, temperature, max_steps and params through ctx or their placeholders; the reference
# agent takes no params).
_UNUSED = {
    "builtin": ("params",),
    "callable": ("tools", "tool_budget"),
    "command": ("tools", "tool_budget"),
}
_UNUSED_HINT = {
    "builtin": "variants of builtin agents may set system_prompt(_file), model, temperature, "
    "max_steps, tool_budget and tools",
    "callable": "variants of callable agents may set system_prompt(_file), model, temperature, "
    "max_steps and params",
    "command": "variants of command agents may set system_prompt(_file), model, temperature, "
    "max_steps and params",
}
_PARAM_PLACEHOLDER = re.compile(r"\{params\.([^{}]*)\}")


Where = tuple[int | str, ...]


def _variant_sets(suite: Suite) -> list[tuple[Where, dict[str, Variant]]]:
    sets: list[tuple[Where, dict[str, Variant]]] = [(("variants",), suite.variants)]
    sets += [(("scenarios", i, "variants"), s.variants) for i, s in enumerate(suite.scenarios)]
    return sets


def _check_variants(suite: Suite, fail: _Fail) -> None:
    """Reserved names, contradictory prompts, overrides the agent kind would ignore."""
    for where, variants in _variant_sets(suite):
        if BASE_VARIANT in variants:
            fail.report(
                (*where, BASE_VARIANT),
                f"a variant may not be named {BASE_VARIANT!r}: that name is the scenario "
                "without overrides",
                "rename the variant",
            )
        for name, variant in variants.items():
            if variant.system_prompt is not None and variant.system_prompt_file is not None:
                fail.report((*where, name, "system_prompt_file"), _BOTH_PROMPTS, _PROMPT_HINT)
    for index, scenario in enumerate(suite.scenarios):
        agent = scenario.agent
        if agent.system_prompt is not None and agent.system_prompt_file is not None:
            where = ("scenarios", index, "agent", "system_prompt_file")
            fail.report(where, _BOTH_PROMPTS, _PROMPT_HINT)
        for name, variant in {**suite.variants, **scenario.variants}.items():
            own = name in scenario.variants
            unused = [f for f in _UNUSED[agent.kind] if getattr(variant, f) is not None]
            if unused:
                where = ("scenarios", index, "variants", name) if own else ("variants", name)
                fail.report(
                    (*where, unused[0]),
                    f"variant {name!r} sets {', '.join(unused)}, which a {agent.kind} agent "
                    "never sees, so the variant would run unchanged"
                    + ("" if own else f" in scenario {scenario.id!r}"),
                    _UNUSED_HINT[agent.kind]
                    + ("" if own else f"; give scenario {scenario.id!r} its own {name!r}"),
                )
    _check_param_placeholders(suite, fail)


def _check_param_placeholders(suite: Suite, fail: _Fail) -> None:
    """Every ``{params.NAME}`` of a command's argv names a parameter under every variant."""
    for index, scenario in enumerate(suite.scenarios):
        agent = scenario.agent
        if not isinstance(agent, CommandAgent):
            continue
        wanted = [
            (position, name)
            for position, arg in enumerate(agent.argv)
            for name in _PARAM_PLACEHOLDER.findall(arg)
        ]
        variants = {**suite.variants, **scenario.variants}
        reported: set[tuple[int, str]] = set()  # one problem per placeholder, its first variant
        for variant in [BASE_VARIANT, *variants]:
            override = variants.get(variant, Variant())
            params = {**agent.params, **(override.params or {})}
            for position, name in wanted:
                if name not in params and (position, name) not in reported:
                    reported.add((position, name))
                    known = ", ".join(sorted(params)) or "none"
                    label = "" if variant == BASE_VARIANT else f" under variant {variant!r}"
                    fail.report(
                        ("scenarios", index, "agent", "argv", position),
                        f"argv uses {{params.{name}}}, which is not a parameter{label}",
                        f"add {name} to the agent's params (known: {known})",
                    )


def _check_prompt_files(suite: Suite, fail: _Fail) -> None:
    """Every system_prompt_file is readable: named with the suite file and line if not."""
    files: list[tuple[Where, str | None]] = [
        (("scenarios", i, "agent"), s.agent.system_prompt_file)
        for i, s in enumerate(suite.scenarios)
    ]
    files += [
        ((*where, name), variant.system_prompt_file)
        for where, variants in _variant_sets(suite)
        for name, variant in variants.items()
    ]
    for where, relative in files:
        if relative is None:
            continue
        path = fail.base_dir / relative
        try:
            read_prompt_text(path)
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            variant = f"variant {where[-1]!r}: " if where[-1] != "agent" else ""
            fail.report(
                (*where, "system_prompt_file"),
                f"{variant}cannot read system_prompt_file {relative!r} ({path}): {reason}",
                "the path is relative to the suite file",
            )


def _check_unique_ids(suite: Suite, fail: _Fail) -> None:
    seen: set[str] = set()
    for index, scenario in enumerate(suite.scenarios):
        if scenario.id in seen:
            fail.report(
                ("scenarios", index, "id"),
                f"duplicate scenario id {scenario.id!r}",
                "every scenario needs its own id",
            )
        seen.add(scenario.id)


def _check_imports(scenario: Scenario, index: int, fail: _Fail, tools: dict[str, str]) -> None:
    targets: list[tuple[tuple[int | str, ...], str]] = []
    agent = scenario.agent
    here: tuple[int | str, ...] = ("scenarios", index)
    if isinstance(agent, CallableAgent):
        targets.append(((*here, "agent", "function"), agent.function))
        for target in agent.agent_errors:
            where = (*here, "agent", "agent_errors", target)
            fail.attempt(_check_exception_type, target, where, fail)
    for place, criterion in placed_criteria(scenario):
        if criterion.kind == "predicate":
            targets.append(((*here, *place, "predicate"), criterion.function))
        if criterion.kind == "final_state" and criterion.predicate is not None:
            targets.append(((*here, *place, "final_state"), criterion.predicate))
    for where, target in targets:
        try:
            import_object(target, allowed_modules=fail.suite.allow_modules)
        except ImportPathError as exc:
            fail.report(where, exc.message, exc.hint)
    if isinstance(agent, CommandAgent):
        try:
            check_executable(agent.argv[0], fail.base_dir, agent.env)
        except ImportPathError as exc:
            fail.report((*here, "agent", "argv", 0), exc.message, exc.hint)
    if not isinstance(agent, BuiltinAgent):
        return
    offered = set(_check_tools(agent.tools, (*here, "agent", "tools"), fail, tools))
    for name, variant in scenario.variants.items():
        where = (*here, "variants", name, "tools")
        offered |= set(_check_tools(variant.tools or (), where, fail, tools))
    shared = [v for n, v in fail.suite.variants.items() if n not in scenario.variants]
    if any(t not in tools for v in shared for t in v.tools or ()):
        return  # a shared variant's tool did not build (reported): the offer is not known
    offered |= {tools[t] for v in shared for t in v.tools or ()}
    for place, criterion in placed_criteria(scenario):
        wanted = getattr(criterion, "name", None)
        named = [wanted] if criterion.kind in ("tool_called", "tool_called_with") else []
        for wanted in [*named, *path_tool_names(criterion)]:
            if wanted in offered:
                continue
            close = difflib.get_close_matches(str(wanted), sorted(offered), n=1)
            fail.report(
                (*here, *place),
                f"{criterion.kind} names tool {wanted!r}, which the agent is never given"
                + (f"; did you mean {close[0]!r}?" if close else ""),
                f"its tools (base and variants): {', '.join(sorted(offered)) or 'none'}",
            )


def _check_exception_type(target: str, where: Where, fail: _Fail) -> None:
    try:
        found = import_object(target)
    except ImportPathError as exc:
        raise fail(where, exc.message, exc.hint) from None
    if not (isinstance(found, type) and issubclass(found, BaseException)):
        raise fail(
            where,
            f"agent_errors names {target!r}, which is not an exception type",
            "name the exception class the framework raises, e.g. "
            "agents.exceptions:MaxTurnsExceeded",
        )


def _check_tools(
    targets: Sequence[str], where: tuple[int | str, ...], fail: _Fail, tools: dict[str, str]
) -> list[str]:
    """Build each tool as the agent will (import path → tool name, cached in ``tools``).

    Raises:
        _Incomplete: some tool did not build (each such problem is reported).
    """
    names = []
    complete = True
    for i, target in enumerate(targets):
        if target not in tools:
            try:
                tools[target] = import_tool(target, allowed_modules=fail.suite.allow_modules)
            except ImportPathError as exc:
                fail.report((*where, i), exc.message, exc.hint)
                complete = False
                continue
        if tools[target] in names:
            fail.report((*where, i), f"two tools are named {tools[target]!r}", "drop one of them")
        names.append(tools[target])
    if not complete:
        raise _Incomplete
    return names


class _Incomplete(Exception):
    """A check could not finish because of a problem already reported."""
