"""Suite files: YAML → validated pydantic models, with errors that name the file, line and field.

A suite has a name, defaults and scenarios; each scenario has an id, an agent, its input, pass
criteria, tolerances and optional variants (named overrides used by A/B comparisons). See the
README for the full format. :func:`load_suite` validates everything it can before any model call:
structure, types, unknown keys (with a "did you mean"), duplicate keys, reserved names, settings
that contradict each other or that the agent kind would ignore, model strings, prompt files, every
``module:function`` import path (tools are built as the agent will build them), the tool names
the criteria expect, and the programs command agents start.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from trajguard.core.normalize import canonical_json
from trajguard.errors import SuiteError
from trajguard.live.criteria import CRITERION_TYPES, Criterion, parse_criterion
from trajguard.live.imports import ImportPathError, check_executable, import_object, import_tool
from trajguard.live.tolerances import TOLERANCES, tolerance_problem
from trajguard.live.yaml_lines import LineMap, dotted, load_yaml_with_lines

__all__ = [
    "BASE_VARIANT",
    "BuiltinAgent",
    "CallableAgent",
    "CommandAgent",
    "Defaults",
    "ResolvedScenario",
    "Scenario",
    "Suite",
    "Variant",
    "load_suite",
]

BASE_VARIANT = "base"
"""The variant name of a scenario run without overrides."""

_ID = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"
_IMPORT_PATH = r"^[\w.]+:[\w.]+$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Defaults(_Strict):
    """Settings every scenario inherits unless it overrides them."""

    runs: int = Field(default=20, ge=1, le=10_000)
    model: str = "local/smollm2"
    temperature: float | None = Field(default=0.7, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=256, ge=1)
    max_steps: int = Field(default=8, ge=1, le=200)
    concurrency: int = Field(default=2, ge=1, le=256)
    timeout_s: float = Field(default=120.0, gt=0)
    api_base: str | None = None


class BuiltinAgent(_Strict):
    """The reference agent: a tool-calling loop over Python functions."""

    kind: Literal["builtin"]
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    """A path relative to the suite file."""
    tools: list[Annotated[str, Field(pattern=_IMPORT_PATH)]] = Field(default_factory=list)
    mode: Literal["json", "native"] = "json"
    tool_budget: int | None = Field(default=None, ge=0)


class CallableAgent(_Strict):
    """``module:function`` (sync or async) called with a run context."""

    kind: Literal["callable"]
    function: str = Field(pattern=_IMPORT_PATH)


class CommandAgent(_Strict):
    """An external process that writes an ATIF file to the path given in ``{output}``."""

    kind: Literal["command"]
    argv: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)

    @field_validator("argv")
    @classmethod
    def _needs_output_placeholder(cls, argv: list[str]) -> list[str]:
        if not any("{output}" in arg for arg in argv):
            raise ValueError("argv must contain {output}: the path where the ATIF file goes")
        return argv


AgentSpec = Annotated[BuiltinAgent | CallableAgent | CommandAgent, Field(discriminator="kind")]


class Variant(_Strict):
    """Named overrides of a scenario (for A/B comparisons)."""

    system_prompt: str | None = None
    system_prompt_file: str | None = None
    model: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_steps: int | None = Field(default=None, ge=1)
    tool_budget: int | None = Field(default=None, ge=0)
    tools: list[Annotated[str, Field(pattern=_IMPORT_PATH)]] | None = None


class Scenario(_Strict):
    """One task the agent is run on, N times."""

    id: str = Field(pattern=_ID)
    description: str = ""
    agent: AgentSpec
    input: str
    pass_criteria: list[Criterion] = Field(default_factory=list, alias="pass")
    tolerances: dict[str, float] = Field(default_factory=dict)
    variants: dict[Annotated[str, Field(pattern=_ID)], Variant] = Field(default_factory=dict)
    runs: int | None = Field(default=None, ge=1)
    max_steps: int | None = Field(default=None, ge=1)

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("tolerances")
    @classmethod
    def _known_tolerances(cls, tolerances: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(tolerances) - set(TOLERANCES))
        if unknown:
            raise ValueError(
                f"unknown tolerance(s) {unknown}; known: {', '.join(sorted(TOLERANCES))}"
            )
        problems = [tolerance_problem(name, value) for name, value in tolerances.items()]
        if any(problems):
            raise ValueError("; ".join(p for p in problems if p))
        return tolerances

    @field_validator("pass_criteria", mode="before")
    @classmethod
    def _tag_criteria(cls, raw: Any) -> Any:
        if not isinstance(raw, list):
            return raw
        return [parse_criterion(item) for item in raw]


class Suite(_Strict):
    """A suite file."""

    name: str = Field(pattern=_ID)
    description: str = ""
    defaults: Defaults = Field(default_factory=Defaults)
    variants: dict[Annotated[str, Field(pattern=_ID)], Variant] = Field(default_factory=dict)
    """Variants for every scenario (a scenario's own variant of the same name wins)."""
    scenarios: list[Scenario] = Field(min_length=1)
    path: Path | None = Field(default=None, exclude=True)

    def scenario(self, scenario_id: str) -> Scenario:
        """The scenario with this id (``SuiteError`` listing the ids when absent)."""
        for scenario in self.scenarios:
            if scenario.id == scenario_id:
                return scenario
        known = ", ".join(s.id for s in self.scenarios)
        raise SuiteError(f"no scenario {scenario_id!r} in suite {self.name!r}; known: {known}")

    def variant_names(self) -> list[str]:
        """Every variant name used by any scenario, plus ``base``."""
        names = {name for s in self.scenarios for name in s.variants} | set(self.variants)
        return [BASE_VARIANT, *sorted(names)]

    def resolve(self, scenario_id: str, variant: str = BASE_VARIANT) -> ResolvedScenario:
        """The effective settings of a scenario under a variant."""
        return _resolve(self, self.scenario(scenario_id), variant)


class ResolvedScenario(_Strict):
    """A scenario with defaults and a variant applied: everything one run needs."""

    suite: str
    scenario: str
    variant: str
    input: str
    agent: AgentSpec
    system_prompt: str | None
    model: str
    api_base: str | None
    temperature: float | None
    max_tokens: int | None
    max_steps: int
    timeout_s: float
    runs: int
    pass_criteria: list[Criterion]
    tolerances: dict[str, float]
    base_dir: str

    def config_hash(self) -> str:
        """SHA-256 prefix over the scenario definition, prompt text included."""
        data = self.model_dump(mode="json", exclude={"runs", "base_dir"})
        return hashlib.sha256(canonical_json(data).encode()).hexdigest()[:16]


def _read_prompt(base_dir: Path, relative: str) -> str:
    path = base_dir / relative
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SuiteError(
            f"cannot read system_prompt_file {relative!r}: {exc.strerror or exc}",
            file=path,
            hint="the path is relative to the suite file",
        ) from None


def _resolve(suite: Suite, scenario: Scenario, variant: str) -> ResolvedScenario:
    known = {**suite.variants, **scenario.variants}
    if variant != BASE_VARIANT and variant not in known:
        raise SuiteError(
            f"scenario {scenario.id!r} has no variant {variant!r}; "
            f"known: {', '.join([BASE_VARIANT, *sorted(known)])}",
        )
    override = known.get(variant, Variant())
    base_dir = suite.path.parent if suite.path else Path.cwd()
    agent: Any = scenario.agent
    prompt = None
    if isinstance(agent, BuiltinAgent):
        prompt_file = override.system_prompt_file or agent.system_prompt_file
        prompt = override.system_prompt or agent.system_prompt
        if override.system_prompt is None and prompt_file:
            prompt = _read_prompt(base_dir, prompt_file)
        updates: dict[str, Any] = {}
        if override.tools is not None:
            updates["tools"] = override.tools
        if override.tool_budget is not None:
            updates["tool_budget"] = override.tool_budget
        agent = agent.model_copy(update=updates)
    defaults = suite.defaults
    return ResolvedScenario(
        suite=suite.name,
        scenario=scenario.id,
        variant=variant,
        input=scenario.input,
        agent=agent,
        system_prompt=prompt,
        model=override.model or defaults.model,
        api_base=defaults.api_base,
        temperature=override.temperature
        if override.temperature is not None
        else defaults.temperature,
        max_tokens=defaults.max_tokens,
        max_steps=override.max_steps or scenario.max_steps or defaults.max_steps,
        timeout_s=defaults.timeout_s,
        runs=scenario.runs or defaults.runs,
        pass_criteria=scenario.pass_criteria,
        tolerances=scenario.tolerances,
        base_dir=str(base_dir),
    )


def load_suite(path: str | Path, *, check_imports: bool = True) -> Suite:
    """Read and validate a suite file.

    Raises:
        SuiteError: naming the file, line and field of the first problem, what was expected,
            and a likely fix; further problems are listed after it.
    """
    path = Path(path)
    data, lines = load_yaml_with_lines(path)
    if not isinstance(data, Mapping):
        raise SuiteError(
            "a suite file is a YAML mapping with name, defaults and scenarios",
            file=path,
            line=1,
        )
    _check_criteria(data, path, lines)
    try:
        suite = Suite.model_validate({**data, "path": path.resolve()})
    except ValidationError as exc:
        raise _suite_error(exc, path, lines, data) from None
    _check_unique_ids(suite, path, lines)
    fail = _Fail(suite, path, lines)
    _check_variants(suite, fail)
    _check_models(suite, fail)
    _check_prompt_files(suite, fail)
    for scenario in suite.scenarios:
        for variant in [BASE_VARIANT, *scenario.variants, *suite.variants]:
            _resolve(suite, scenario, variant)  # reads every prompt file now, not mid-batch
    if check_imports:
        tools: dict[str, str] = {}
        for name, shared in suite.variants.items():
            _check_tools(shared.tools or (), ("variants", name, "tools"), fail, tools)
        for index, scenario in enumerate(suite.scenarios):
            _check_imports(scenario, index, fail, tools)
    return suite


class _Fail:
    """Makes the :class:`SuiteError` of a problem found after validation, with its line."""

    def __init__(self, suite: Suite, path: Path, lines: LineMap) -> None:
        self.suite, self.path, self.lines = suite, path, lines
        self.base_dir = path.resolve().parent

    def __call__(
        self, where: tuple[int | str, ...], message: str, hint: str | None = None
    ) -> SuiteError:
        scenario = None
        if len(where) > 1 and where[0] == "scenarios" and isinstance(where[1], int):
            scenario = self.suite.scenarios[where[1]].id
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
# Variant settings each agent kind never sees (a callable gets ctx.model, ctx.temperature and
# ctx.max_steps; a command gets {model}).
_UNUSED = {
    "callable": ("system_prompt", "system_prompt_file", "tools", "tool_budget"),
    "command": (
        "system_prompt",
        "system_prompt_file",
        "tools",
        "tool_budget",
        "temperature",
        "max_steps",
    ),
}


Where = tuple[int | str, ...]


def _variant_sets(suite: Suite) -> list[tuple[Where, dict[str, Variant]]]:
    sets: list[tuple[Where, dict[str, Variant]]] = [(("variants",), suite.variants)]
    sets += [(("scenarios", i, "variants"), s.variants) for i, s in enumerate(suite.scenarios)]
    return sets


def _check_variants(suite: Suite, fail: _Fail) -> None:
    """Reserved names, contradictory prompts, overrides the agent kind would ignore."""
    for where, variants in _variant_sets(suite):
        if BASE_VARIANT in variants:
            raise fail(
                (*where, BASE_VARIANT),
                f"a variant may not be named {BASE_VARIANT!r}: that name is the scenario "
                "without overrides",
                "rename the variant",
            )
        for name, variant in variants.items():
            if variant.system_prompt is not None and variant.system_prompt_file is not None:
                raise fail((*where, name, "system_prompt_file"), _BOTH_PROMPTS, _PROMPT_HINT)
    for index, scenario in enumerate(suite.scenarios):
        agent = scenario.agent
        if isinstance(agent, BuiltinAgent):
            if agent.system_prompt is not None and agent.system_prompt_file is not None:
                where = ("scenarios", index, "agent", "system_prompt_file")
                raise fail(where, _BOTH_PROMPTS, _PROMPT_HINT)
            continue
        for name, variant in {**suite.variants, **scenario.variants}.items():
            own = name in scenario.variants
            unused = [f for f in _UNUSED[agent.kind] if getattr(variant, f) is not None]
            if unused:
                where = ("scenarios", index, "variants", name) if own else ("variants", name)
                raise fail(
                    (*where, unused[0]),
                    f"variant {name!r} sets {', '.join(unused)}, which a {agent.kind} agent "
                    "never sees, so the variant would run unchanged"
                    + ("" if own else f" in scenario {scenario.id!r}"),
                    "variants of callable agents may set model, temperature and max_steps; of "
                    "command agents, model"
                    + ("" if own else f"; give scenario {scenario.id!r} its own {name!r}"),
                )


def _check_models(suite: Suite, fail: _Fail) -> None:
    from trajguard.capture.llm import model_problem

    api_base = suite.defaults.api_base
    models: list[tuple[Where, str]] = [(("defaults", "model"), suite.defaults.model)]
    models += [
        ((*where, name, "model"), variant.model)
        for where, variants in _variant_sets(suite)
        for name, variant in variants.items()
        if variant.model is not None
    ]
    for where, model in models:
        problem = model_problem(model, api_base)
        if problem is None:
            continue
        if not model.strip():
            raise fail(where, problem, "e.g. local/smollm2 or ollama_chat/qwen2.5:1.5b")
        raise fail(
            ("defaults", "api_base") if where[0] == "defaults" else where,
            problem,
            "defaults.api_base is the endpoint of every model of the suite; remove it to run "
            "local/smollm2",
        )


def _check_prompt_files(suite: Suite, fail: _Fail) -> None:
    """Every system_prompt_file is readable: named with the suite file and line if not."""
    files: list[tuple[Where, str | None]] = [
        (("scenarios", i, "agent"), s.agent.system_prompt_file)
        for i, s in enumerate(suite.scenarios)
        if isinstance(s.agent, BuiltinAgent)
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
            path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            variant = f"variant {where[-1]!r}: " if where[-1] != "agent" else ""
            raise fail(
                (*where, "system_prompt_file"),
                f"{variant}cannot read system_prompt_file {relative!r} ({path}): {reason}",
                "the path is relative to the suite file",
            ) from None


def _check_criteria(data: Mapping[str, Any], path: Path, lines: LineMap) -> None:
    scenarios = data.get("scenarios")
    for index, scenario in enumerate(scenarios if isinstance(scenarios, list) else ()):
        criteria = scenario.get("pass") if isinstance(scenario, Mapping) else None
        for c_index, raw in enumerate(criteria if isinstance(criteria, list) else ()):
            try:
                parse_criterion(raw)
            except ValueError as exc:
                where = ("scenarios", index, "pass", c_index)
                name = scenario.get("id")
                raise SuiteError(
                    f"scenario {name!r}: {exc}",
                    file=path,
                    line=lines.line_of(where),
                    path=dotted(where),
                    hint="see the pass criteria in the README",
                ) from None


def _check_unique_ids(suite: Suite, path: Path, lines: LineMap) -> None:
    seen: set[str] = set()
    for index, scenario in enumerate(suite.scenarios):
        if scenario.id in seen:
            raise SuiteError(
                f"duplicate scenario id {scenario.id!r}",
                file=path,
                line=lines.line_of(("scenarios", index, "id")),
                path=f"scenarios[{index}].id",
                hint="every scenario needs its own id",
            )
        seen.add(scenario.id)


def _check_imports(scenario: Scenario, index: int, fail: _Fail, tools: dict[str, str]) -> None:
    targets: list[tuple[tuple[int | str, ...], str]] = []
    agent = scenario.agent
    here: tuple[int | str, ...] = ("scenarios", index)
    if isinstance(agent, CallableAgent):
        targets.append(((*here, "agent", "function"), agent.function))
    for c_index, criterion in enumerate(scenario.pass_criteria):
        if criterion.kind == "predicate":
            targets.append(((*here, "pass", c_index, "predicate"), criterion.function))
    for where, target in targets:
        try:
            import_object(target)
        except ImportPathError as exc:
            raise fail(where, str(exc), exc.hint) from None
    if isinstance(agent, CommandAgent):
        try:
            check_executable(agent.argv[0], fail.base_dir)
        except ImportPathError as exc:
            raise fail((*here, "agent", "argv", 0), str(exc), exc.hint) from None
    if not isinstance(agent, BuiltinAgent):
        return
    offered = set(_check_tools(agent.tools, (*here, "agent", "tools"), fail, tools))
    for name, variant in scenario.variants.items():
        where = (*here, "variants", name, "tools")
        offered |= set(_check_tools(variant.tools or (), where, fail, tools))
    shared = [v for n, v in fail.suite.variants.items() if n not in scenario.variants]
    offered |= {tools[t] for v in shared for t in v.tools or ()}
    for c_index, criterion in enumerate(scenario.pass_criteria):
        wanted = getattr(criterion, "name", None)
        if criterion.kind in ("tool_called", "tool_called_with") and wanted not in offered:
            close = difflib.get_close_matches(str(wanted), sorted(offered), n=1)
            raise fail(
                (*here, "pass", c_index),
                f"{criterion.kind} names tool {wanted!r}, which the agent is never given"
                + (f"; did you mean {close[0]!r}?" if close else ""),
                f"its tools (base and variants): {', '.join(sorted(offered)) or 'none'}",
            )


def _check_tools(
    targets: Sequence[str], where: tuple[int | str, ...], fail: _Fail, tools: dict[str, str]
) -> list[str]:
    """Build each tool as the agent will (import path → tool name, cached in ``tools``)."""
    names = []
    for i, target in enumerate(targets):
        if target not in tools:
            try:
                tools[target] = import_tool(target)
            except ImportPathError as exc:
                raise fail((*where, i), str(exc), exc.hint) from None
        if tools[target] in names:
            raise fail((*where, i), f"two tools are named {tools[target]!r}", "drop one of them")
        names.append(tools[target])
    return names


def _suite_error(exc: ValidationError, path: Path, lines: LineMap, data: Any) -> SuiteError:
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not _is_union_label(p))
        loc = tuple("pass" if p == "pass_criteria" else p for p in loc)
        if err["type"] == "union_tag_invalid":
            loc = (*loc, "kind")
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = _unknown_key_message(loc, data)
        elif err["type"] == "string_pattern_mismatch":
            message = _pattern_message(err["ctx"].get("pattern", ""), err.get("input"))
        elif err["type"] == "missing":
            message = f"required field {loc[-1]!r} is missing"
        got = err.get("input")
        quiet = ("missing", "extra_forbidden", "string_pattern_mismatch")
        if err["type"] not in quiet and not isinstance(got, dict | list):
            message += f" (got {got!r:.60})"
        problems.append((loc, message))
    loc, message = problems[0]
    where = dotted(loc)
    scenario = _scenario_id(data, loc)
    prefix = f"scenario {scenario!r}: " if scenario else ""
    return SuiteError(
        f"{prefix}{message}",
        file=path,
        line=lines.line_of(loc),
        path=where or None,
        details=[f"also {dotted(other)}: {text}" for other, text in problems[1:6]],
        hint="see the suite format in the README",
    )


_UNION_TAGS = frozenset({"builtin", "callable", "command", "[key]"})


def _pattern_message(pattern: str, got: Any) -> str:
    if pattern == _IMPORT_PATH:
        return f"{got!r} is not an import path; write it as module.submodule:function"
    return f"{got!r} is not a valid id; use letters, digits, '_', '.' and '-'"


def _is_union_label(part: int | str) -> bool:
    # pydantic puts the discriminator value (e.g. "builtin") into error locations; the YAML
    # document has no such level.
    return isinstance(part, str) and part in _UNION_TAGS


def _scenario_id(data: Any, loc: tuple[int | str, ...]) -> str | None:
    if len(loc) >= 2 and loc[0] == "scenarios" and isinstance(loc[1], int):
        scenarios = data.get("scenarios") if isinstance(data, Mapping) else None
        if isinstance(scenarios, list) and loc[1] < len(scenarios):
            item = scenarios[loc[1]]
            if isinstance(item, Mapping) and isinstance(item.get("id"), str):
                return str(item["id"])
    return None


_ALLOWED: dict[str, list[str]] = {
    "suite": ["name", "description", "defaults", "variants", "scenarios"],
    "defaults": list(Defaults.model_fields),
    "scenario": [
        "id",
        "description",
        "agent",
        "input",
        "pass",
        "tolerances",
        "variants",
        "runs",
        "max_steps",
    ],
    "variant": list(Variant.model_fields),
}


def _criterion_fields(data: Any, parent: tuple[int | str, ...]) -> list[str]:
    try:
        raw = data["scenarios"][parent[1]]["pass"][parent[3]]
        kind = parse_criterion(raw)["kind"]
    except (KeyError, IndexError, TypeError, ValueError):
        return []
    adapter_fields = {c.model_fields["kind"].default: c for c in CRITERION_TYPES}
    return [f for f in adapter_fields[kind].model_fields if f != "kind"]


def _agent_fields(data: Any, parent: tuple[int | str, ...]) -> list[str]:
    try:
        kind = data["scenarios"][parent[1]]["agent"]["kind"]
    except (KeyError, IndexError, TypeError):
        return []
    kinds: dict[str, type[BaseModel]] = {
        "builtin": BuiltinAgent,
        "callable": CallableAgent,
        "command": CommandAgent,
    }
    return list(kinds[kind].model_fields) if kind in kinds else []


def _unknown_key_message(loc: tuple[int | str, ...], data: Any) -> str:
    key = str(loc[-1])
    parent = loc[:-1]
    if not parent:
        known = _ALLOWED["suite"]
    elif parent == ("defaults",):
        known = _ALLOWED["defaults"]
    elif len(parent) == 2 and parent[0] == "scenarios":
        known = _ALLOWED["scenario"]
    elif (len(parent) >= 3 and parent[2] == "variants") or (
        len(parent) == 2 and parent[0] == "variants"
    ):
        known = _ALLOWED["variant"]
    elif len(parent) == 5 and parent[2] == "pass":
        known = _criterion_fields(data, parent)
    elif len(parent) == 3 and parent[0] == "scenarios" and parent[2] == "agent":
        known = _agent_fields(data, parent)
    else:
        known = []
    close = difflib.get_close_matches(key, known, n=1)
    suggestion = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown field {key!r}{suggestion}" + (
        f" (allowed: {', '.join(known)})" if known and not close else ""
    )
