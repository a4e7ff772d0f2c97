"""Suite files: YAML → validated pydantic models, with errors that name the file, line and field.

A suite has a name, defaults and scenarios; each scenario has an id, an agent, its input, pass
criteria, tolerances and optional variants (named overrides used by A/B comparisons). See
docs/reference/suite.md for the full format. :func:`load_suite` validates everything it can
before any model call: structure, types, unknown keys (with a "did you mean"), duplicate keys,
reserved names, settings that contradict each other or that the agent kind would ignore, model
strings, prompt files, every ``module:function`` import path (tools are built as the agent will
build them), the tool names the criteria expect, and the programs command agents start. The
models live here; the checks beyond what pydantic validates live in :mod:`._checks`, the reading
in :mod:`._load`.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from trajguard._catalog import TOLERANCES, tolerance_problems
from trajguard._files import NAME_PATTERN
from trajguard.capture import Price
from trajguard.core.normalize import canonical_json
from trajguard.errors import SuiteError
from trajguard.faults import FaultSpec
from trajguard.suite import _conversation as conv
from trajguard.suite._agent_kinds import (
    IMPORT_PATH,
    MODEL_PLACEHOLDERS,
    AgentSpec,
    BuiltinAgent,
    CallableAgent,
    CommandAgent,
)
from trajguard.suite._conversation import ScriptedTurn, SimulatedUserSettings
from trajguard.suite._criteria import Criterion, parse_criterion
from trajguard.suite._files import read_prompt_text
from trajguard.suite._floors import Floor
from trajguard.suite._gates import check_gates
from trajguard.suite._pairwise import PairwiseJudge
from trajguard.suite._runs import runs_of
from trajguard.suite._settings import (
    MAX_TIMEOUT_S,
    ExecutorSettings,
    LocalExecutorSettings,
    RayExecutorSettings,
    TimeoutSeconds,
)
from trajguard.suite._settings import Strict as _Strict
from trajguard.suite._state import JsonObject

__all__ = [
    "BASE_VARIANT",
    "MAX_TIMEOUT_S",
    "MODEL_PLACEHOLDERS",
    "BuiltinAgent",
    "CallableAgent",
    "CommandAgent",
    "Defaults",
    "ExecutorSettings",
    "LocalExecutorSettings",
    "RayExecutorSettings",
    "ResolvedScenario",
    "Scenario",
    "Suite",
    "TimeoutSeconds",
    "Variant",
]

BASE_VARIANT = "base"
"""The variant name of a scenario run without overrides."""

_ID = NAME_PATTERN


class Defaults(_Strict):
    """Settings every scenario inherits unless it overrides them."""

    runs: int = Field(default=20, ge=1, le=10_000)
    model: str = "local/smollm2"
    temperature: float | None = Field(default=0.7, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=256, ge=1)
    max_steps: int = Field(default=8, ge=1, le=200)
    concurrency: int = Field(default=2, ge=1, le=256)
    timeout_s: TimeoutSeconds = 120.0
    api_base: str | None = None
    executor: ExecutorSettings = Field(default_factory=LocalExecutorSettings)
    require_power: bool = False
    """A night whose gating tests could not see a pass-rate drop of the band in some scenario
    (a blind night) exits 4 instead of 0 (``nightly --require-power`` sets it for one run)."""
    store: str | None = Field(default=None, min_length=1)
    """The suite's store of nights (a directory, relative to the suite file, or a URL such as
    ``s3://bucket/prefix``): ``nightly`` keeps each night there unless ``--store`` or
    ``$TRAJGUARD_STORE`` names another."""
    floor: Floor | None = None
    """Bars every scenario's runs must show, unless it sets its own ``floor`` (:mod:`._floors`)."""
    gate: tuple[str, ...] = ()
    """Metrics that gate besides the default ones (``[cost]``: a night whose cost per run
    regressed beyond its band fails), in ``nightly``, ``compare`` of its run sets and ``ab``;
    ``--gate`` adds to them, it does not remove them."""

    @field_validator("gate")
    @classmethod
    def _known_gates(cls, gate: tuple[str, ...]) -> tuple[str, ...]:
        return check_gates(gate)

    @field_validator("executor", mode="before")
    @classmethod
    def _executor_by_name(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value


class Variant(_Strict):
    """Named overrides of a scenario (for A/B comparisons)."""

    system_prompt: str | None = None
    system_prompt_file: str | None = None
    model: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_steps: int | None = Field(default=None, ge=1)
    tool_budget: int | None = Field(default=None, ge=0)
    tools: list[Annotated[str, Field(pattern=IMPORT_PATH)]] | None = None
    params: dict[str, Any] | None = None
    """Keys merged over the agent's ``params`` (callable and command agents)."""
    faults: list[FaultSpec] | None = None
    """Faults injected into the runs of this variant, instead of the scenario's
    (docs/how-to/chaos.md); ``[]`` runs the variant without the scenario's faults."""


class Scenario(_Strict):
    """One task the agent is run on, N times."""

    id: str = Field(pattern=_ID)
    description: str = ""
    agent: AgentSpec
    turns: list[ScriptedTurn] | None = Field(default=None, min_length=1)
    """The user's messages, scripted (a conversation); instead of ``input``."""
    user: SimulatedUserSettings | None = None
    """A user played by a model (a conversation); instead of ``input``."""
    input: str | None = Field(default=None, validate_default=True)  # after them: it checks them
    """The user's one message (required unless ``turns`` or ``user`` is given)."""
    pass_criteria: list[Criterion] = Field(default_factory=list, alias="pass")
    tolerances: dict[str, float] = Field(default_factory=dict)
    floor: Floor | None = None
    """Bars its runs must show, with or without a baseline (replaces the default floor)."""
    variants: dict[Annotated[str, Field(pattern=_ID)], Variant] = Field(default_factory=dict)
    runs: int | None = Field(default=None, ge=1)
    """Its runs instead of ``defaults.runs`` (``--runs N`` overrides both), under every design."""
    max_steps: int | None = Field(default=None, ge=1)
    faults: list[FaultSpec] = Field(default_factory=list)
    """Faults injected into every run of the scenario (a variant's ``faults`` replace them)."""
    tags: tuple[Annotated[str, Field(min_length=1)], ...] = ()
    """Labels reports group results by (pass rate by tag); not part of the config hash."""
    source_row: dict[str, Any] | None = None
    """The data row a ``scenarios_from`` scenario was made from (set by the loader)."""
    state: JsonObject | None = None
    """The seed of the state its tools share in a run; each run gets a deep copy of its own."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("tolerances")
    @classmethod
    def _known_tolerances(cls, tolerances: dict[str, float]) -> dict[str, float]:
        known = sorted(name for t in TOLERANCES for name in (t.name, *t.aliases))
        unknown = sorted(set(tolerances) - set(known))
        if unknown:
            raise ValueError(f"unknown tolerance(s) {unknown}; known: {', '.join(known)}")
        problems = tolerance_problems(tolerances)
        if problems:
            raise ValueError("; ".join(problems))
        return tolerances

    @field_validator("pass_criteria", mode="before")
    @classmethod
    def _tag_criteria(cls, raw: Any) -> Any:
        if not isinstance(raw, list):
            return raw
        return [parse_criterion(item) for item in raw]

    @field_validator("input")
    @classmethod
    def _one_user_side(cls, value: str | None, info: ValidationInfo) -> str | None:
        return conv.check_user_side(value, info.data)


class Suite(_Strict):
    """A suite file."""

    name: str = Field(pattern=_ID)
    description: str = ""
    defaults: Defaults = Field(default_factory=Defaults)
    variants: dict[Annotated[str, Field(pattern=_ID)], Variant] = Field(default_factory=dict)
    """Variants for every scenario (a scenario's own variant of the same name wins)."""
    scenarios: list[Scenario] = Field(min_length=1)
    allow_modules: tuple[Annotated[str, Field(pattern=r"^[A-Za-z_]\w*$")], ...] = ()
    """Modules whose functions a suite may otherwise not use as tools, agents or predicates
    (``os``, ``subprocess``, ``shutil`` …: they run programs or touch files), allowed
    explicitly."""
    prompt_dirs: tuple[str, ...] = ()
    """Directories besides the suite's own tree that ``system_prompt_file`` and
    ``scenarios_from`` files may read from (relative to the suite file, or absolute)."""
    pairwise: PairwiseJudge | None = None
    """A judge that, in ``trajguard ab``, says which variant's answer to each input is better
    (A/B comparisons, "The pairwise judge")."""
    prices: dict[Annotated[str, Field(min_length=1)], Price] = Field(default_factory=dict)
    """Model string → its price in US dollars per million tokens; a model not listed is priced
    from litellm's bundled price map, else its cost is unknown (null, never 0)."""
    path: Path | None = Field(default=None, exclude=True)

    @cached_property
    def _by_id(self) -> dict[str, Scenario]:
        by_id: dict[str, Scenario] = {}
        for scenario in self.scenarios:
            by_id.setdefault(scenario.id, scenario)  # the first of a duplicate id (refused)
        return by_id

    def scenario(self, scenario_id: str) -> Scenario:
        """The scenario with this id (``SuiteError`` listing the ids when absent)."""
        found = self._by_id.get(scenario_id)
        if found is not None:
            return found
        known = ", ".join(s.id for s in self.scenarios[:50])
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
    params: dict[str, Any] = Field(default_factory=dict)
    """The agent's parameters with the variant's merged over them."""
    allow_modules: tuple[str, ...] = ()
    """The suite's ``allow_modules`` (what it may import; not part of the definition's hash)."""
    faults: list[FaultSpec] = Field(default_factory=list)
    """The faults injected into its runs (the variant's, else the scenario's)."""
    tags: tuple[str, ...] = ()
    """The scenario's tags (for grouping; not part of the hash)."""
    source_row: dict[str, Any] | None = None
    """The data row of a ``scenarios_from`` scenario: part of the hash, so editing a row
    changes that scenario's hash only."""
    state: dict[str, Any] | None = None
    """The seed of the state its tools share in a run (deep-copied for each run)."""
    turns: list[ScriptedTurn] | None = None  # a conversation: input is the first message,
    user: SimulatedUserSettings | None = None  # or the simulated user's opening (else empty)
    prices: dict[str, Price] = Field(default_factory=dict)
    """The suite's price table (what a run costs, not what it does: not part of the hash)."""

    def config_hash(self) -> str:
        """SHA-256 prefix over the scenario definition, prompt text, parameters, faults and
        data row."""
        excluded = {"runs", "base_dir", "allow_modules", "tags", "prices"}
        data = self.model_dump(mode="json", exclude=excluded)
        for added in ("params", "faults", "source_row", "state", "turns", "user"):  # older kept
            if not data[added]:
                del data[added]
        return hashlib.sha256(canonical_json(data).encode()).hexdigest()[:16]


def _read_prompt(base_dir: Path, relative: str, allowed_dirs: tuple[str, ...] = ()) -> str:
    path = base_dir / relative
    roots = [base_dir, *(base_dir / extra for extra in allowed_dirs)]
    resolved = path.resolve()
    if not any(resolved.is_relative_to(root.resolve()) for root in roots):
        raise SuiteError(
            f"system_prompt_file {relative!r} is outside the suite's directory {base_dir}",
            file=path,
            hint="keep prompt files beside the suite (or below it), or name their directory "
            "in the suite's prompt_dirs: [...]",
        )
    try:
        return read_prompt_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SuiteError(
            f"cannot read system_prompt_file {relative!r}: {reason}",
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
    prompt_file = override.system_prompt_file or agent.system_prompt_file
    prompt = override.system_prompt or agent.system_prompt
    if override.system_prompt is None and prompt_file:
        prompt = _read_prompt(base_dir, prompt_file, suite.prompt_dirs)
    params: dict[str, Any] = {}
    if not isinstance(agent, BuiltinAgent):
        params = {**agent.params, **(override.params or {})}
    if isinstance(agent, BuiltinAgent):
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
        input=conv.first_message(scenario.input, scenario.turns, scenario.user),
        turns=scenario.turns,
        user=scenario.user,
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
        runs=runs_of(scenario, defaults),
        pass_criteria=scenario.pass_criteria,
        tolerances=scenario.tolerances,
        base_dir=str(base_dir),
        allow_modules=suite.allow_modules,
        params=params,
        faults=scenario.faults if override.faults is None else override.faults,
        tags=scenario.tags,
        source_row=scenario.source_row,
        state=scenario.state,
        prices=suite.prices,
    )
