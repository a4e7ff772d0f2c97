"""Zero-code capture: an agent that calls ``litellm`` itself, captured as an ATIF trajectory
without changing it (see :func:`capture_litellm` for what is captured and its limits)."""

from trajguard.capture.zerocode._capture import LiteLLMCapture, capture_litellm

__all__ = ["LiteLLMCapture", "capture_litellm"]
