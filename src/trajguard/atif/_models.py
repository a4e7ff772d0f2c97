"""The ATIF schema as pydantic models: every field of v1.0 to v1.8, with the reference types.

Field types, required fields and value ranges are those of Harbor's ``harbor.models.trajectories``
(the reference implementation), so a document is structurally valid here exactly when it is
there. Two things differ on purpose, both so that loading never loses data:

* fields the schema does not define are kept (``extra="allow"``) rather than refused;
  :func:`trajguard.atif.unknown_fields` lists them and :func:`trajguard.atif.validate` reports
  them as errors, as Harbor does;
* rules across fields (sequential step ids, joins, agent-only fields, at least one step, a
  message on every step, ...) are not model validators: :mod:`trajguard.atif._rules` reports
  them with the JSON path, so a file that breaks them can still be normalised and inspected.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SchemaVersion = Literal[
    "ATIF-v1.0",
    "ATIF-v1.1",
    "ATIF-v1.2",
    "ATIF-v1.3",
    "ATIF-v1.4",
    "ATIF-v1.5",
    "ATIF-v1.6",
    "ATIF-v1.7",
    "ATIF-v1.8",
]
SUPPORTED_VERSIONS: tuple[str, ...] = get_args(SchemaVersion)
ATIF_VERSION: SchemaVersion = "ATIF-v1.8"
"""The version trajguard writes: the current one."""

ImageMediaType = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
AudioMediaType = Literal[
    "audio/wav",
    "audio/mpeg",
    "audio/mp4",
    "audio/aac",
    "audio/ogg",
    "audio/flac",
    "audio/webm",
    "audio/aiff",
]
AUDIO_MEDIA_TYPE_ALIASES = {
    "audio/mp3": "audio/mpeg",
    "audio/mpga": "audio/mpeg",
    "audio/x-mpeg": "audio/mpeg",
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/vnd.wave": "audio/wav",
    "audio/x-m4a": "audio/mp4",
    "audio/m4a": "audio/mp4",
    "audio/x-aac": "audio/aac",
    "audio/x-flac": "audio/flac",
    "audio/x-aiff": "audio/aiff",
}
"""Spellings producers emit for a registered audio type (v1.8 accepts them, case-insensitively)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")


class ImageSource(_Model):
    """Where an image content part's bytes live (v1.6+)."""

    media_type: ImageMediaType
    path: str
    """A relative or absolute file path, or a URL."""


class AudioSource(_Model):
    """Where an audio content part's bytes live (v1.8)."""

    media_type: str
    """One of :data:`AudioMediaType` or an alias of one (:data:`AUDIO_MEDIA_TYPE_ALIASES`).

    Kept as written: the canonical spelling is only used to check it.
    """
    path: str
    """A relative or absolute file path, or a URL."""
    duration_sec: float | None = Field(default=None, ge=0)

    @field_validator("media_type")
    @classmethod
    def _known_audio_type(cls, value: str) -> str:
        canonical = value.strip().lower()
        canonical = AUDIO_MEDIA_TYPE_ALIASES.get(canonical, canonical)
        if canonical not in get_args(AudioMediaType):
            allowed = ", ".join(get_args(AudioMediaType))
            raise ValueError(f"not an ATIF audio media type (allowed: {allowed} or an alias)")
        return value


class TextPart(_Model):
    """A text content part (v1.6+)."""

    type: Literal["text"]
    text: str
    source: None = None


class ImagePart(_Model):
    """An image content part (v1.6+)."""

    type: Literal["image"]
    source: ImageSource
    text: None = None


class AudioPart(_Model):
    """An audio content part (v1.8)."""

    type: Literal["audio"]
    source: AudioSource
    text: None = None


ContentPart = Annotated[TextPart | ImagePart | AudioPart, Field(discriminator="type")]
Content = str | list[ContentPart]


class ToolCall(_Model):
    """One tool call of an agent step."""

    tool_call_id: str
    """Joins the observation result that answers this call (rule N2)."""
    function_name: str
    arguments: dict[str, Any]
    """The call's arguments as a JSON object (may be empty, never absent)."""
    extra: dict[str, Any] | None = None


class SubagentRef(_Model):
    """A pointer from an observation to a subagent trajectory.

    It resolves by ``trajectory_id`` (an embedded trajectory, rule N9) or by
    ``trajectory_path`` (an external file); with both, consumers may choose either.
    ``session_id`` is informational (v1.7+), and was the join key before v1.7.
    """

    trajectory_id: str | None = None
    trajectory_path: str | None = None
    session_id: str | None = None
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _needs_a_target(self) -> SubagentRef:
        if self.trajectory_id is None and self.trajectory_path is None:
            raise ValueError("a subagent_trajectory_ref needs trajectory_id or trajectory_path")
        return self


class ObservationResult(_Model):
    """The result of one tool call (or a subagent run)."""

    source_call_id: str | None = None
    """The tool_call_id this result answers, in the same step (rule N2)."""
    content: Content | None = None
    subagent_trajectory_ref: list[SubagentRef] | None = None
    extra: dict[str, Any] | None = None


class Observation(_Model):
    """The results of a step's tool calls."""

    results: list[ObservationResult]


class Metrics(_Model):
    """Token usage and cost of one agent step."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    """Volatile: live pricing moves; normalisation removes it."""
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    extra: dict[str, Any] | None = None


class FinalMetrics(_Model):
    """Aggregates over the whole run."""

    total_prompt_tokens: int | None = None
    total_completion_tokens: int | None = None
    total_cached_tokens: int | None = None
    total_cost_usd: float | None = None
    total_steps: int | None = Field(default=None, ge=0)
    extra: dict[str, Any] | None = None


class Step(_Model):
    """One step of a trajectory: a system prompt, a user turn, or an agent turn."""

    step_id: int
    """Sequential from 1 with no gaps (rule N1); some producers write it as a string."""
    timestamp: str | None = None
    """ISO 8601 (rule N6). Volatile."""
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    """Agent steps only (rule N11), like the next four fields."""
    reasoning_effort: str | float | None = None
    message: Content | None = None
    """Required by rule N7 (may be the empty string); checked by the rules, not here."""
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    observation: Observation | None = None
    metrics: Metrics | None = None
    llm_call_count: int | None = Field(default=None, ge=0)
    """1 for a normal agent step, >1 aggregated, 0 for a deterministic dispatch (rule N5)."""
    is_copied_context: bool | None = None
    """Copied from an earlier trajectory for context: its model call was made there."""
    extra: dict[str, Any] | None = None


class Agent(_Model):
    """The agent that produced the run."""

    name: str
    version: str
    model_name: str | None = None
    tool_definitions: list[dict[str, Any]] | None = None
    extra: dict[str, Any] | None = None


class Trajectory(_Model):
    """One agent run: the root of an ATIF document, or an embedded subagent run."""

    schema_version: SchemaVersion = ATIF_VERSION
    session_id: str | None = None
    trajectory_id: str | None = None
    agent: Agent
    steps: list[Step]
    """At least one (rule N10)."""
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    continued_trajectory_ref: str | None = None
    extra: dict[str, Any] | None = None
    subagent_trajectories: list[Trajectory] | None = None
