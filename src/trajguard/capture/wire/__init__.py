"""Capture at the wire: an OpenAI-compatible endpoint on 127.0.0.1 that records each run.

During a batch, :class:`WireServer` serves chat completions (streaming included) under a base
URL per run (:class:`WireSession`): any client that takes a base URL — the openai SDK,
LangChain, pydantic-ai, openai-agents, smolagents, a Node or shell agent — is captured without
a code change or an ATIF export. Each request is checked and, for the embedded model, rewritten
into a shape its server takes (:func:`parse_request`), forwarded to the run's model, answered,
and recorded as a :class:`~trajguard.capture.zerocode.CallRecord`; the records become the run's
trajectory with :func:`~trajguard.capture.zerocode.build_trajectory`.
"""

from trajguard.capture.wire._request import RequestShapeError, WireRequest, parse_request
from trajguard.capture.wire._server import WireServer
from trajguard.capture.wire._session import Forward, WireSession

__all__ = [
    "Forward",
    "RequestShapeError",
    "WireRequest",
    "WireServer",
    "WireSession",
    "parse_request",
]
