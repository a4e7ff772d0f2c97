"""Zero-code capture: an agent that calls ``litellm`` itself, captured as an ATIF trajectory
without changing it (see :func:`capture_litellm` for what is captured and its limits).

:class:`CallRecord` and :func:`build_trajectory` turn model calls seen anywhere (litellm's
callbacks here, the wire endpoint of :mod:`trajguard.capture.wire`) into one trajectory.
"""

from trajguard.capture.zerocode._build import CallRecord, build_trajectory
from trajguard.capture.zerocode._capture import LiteLLMCapture, capture_litellm
from trajguard.capture.zerocode._messages import normalize_messages, normalize_response

__all__ = [
    "CallRecord",
    "LiteLLMCapture",
    "build_trajectory",
    "capture_litellm",
    "normalize_messages",
    "normalize_response",
]
