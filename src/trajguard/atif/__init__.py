"""ATIF (Agent Trajectory Interchange Format) v1.0 to v1.8: models, reading, writing, checking.

Reading accepts every v1.x release up to v1.8 (audio content parts included); writing always
produces :data:`ATIF_VERSION`. The structural schema matches Harbor's reference models; fields it
does not define are kept and announced once per document (:class:`UnknownFieldsWarning`).
:func:`check_normative` applies the rules across fields (N1 to N11) and :func:`validate` gives
the verdict of ``trajguard validate``, which agrees with Harbor's validator.
"""

from trajguard.atif._io import (
    MAX_NESTING,
    UnknownFieldsWarning,
    dump_trajectory,
    load_trajectory,
    trajectory_to_dict,
    unknown_fields,
)
from trajguard.atif._models import (
    ATIF_VERSION,
    AUDIO_MEDIA_TYPE_ALIASES,
    SUPPORTED_VERSIONS,
    Agent,
    AudioPart,
    AudioSource,
    Content,
    ContentPart,
    FinalMetrics,
    ImagePart,
    ImageSource,
    Metrics,
    Observation,
    ObservationResult,
    SchemaVersion,
    Step,
    SubagentRef,
    TextPart,
    ToolCall,
    Trajectory,
)
from trajguard.atif._rules import Severity, Violation, check_normative
from trajguard.atif._validate import ValidationReport, validate

__all__ = [
    "ATIF_VERSION",
    "AUDIO_MEDIA_TYPE_ALIASES",
    "MAX_NESTING",
    "SUPPORTED_VERSIONS",
    "Agent",
    "AudioPart",
    "AudioSource",
    "Content",
    "ContentPart",
    "FinalMetrics",
    "ImagePart",
    "ImageSource",
    "Metrics",
    "Observation",
    "ObservationResult",
    "SchemaVersion",
    "Severity",
    "Step",
    "SubagentRef",
    "TextPart",
    "ToolCall",
    "Trajectory",
    "UnknownFieldsWarning",
    "ValidationReport",
    "Violation",
    "check_normative",
    "dump_trajectory",
    "load_trajectory",
    "trajectory_to_dict",
    "unknown_fields",
    "validate",
]
