"""Capture: an agent run becomes an ATIF trajectory.

The model layer (:mod:`.llm`, the one caller of litellm), the recorder (:mod:`.recorder`, model
calls and tool results as ATIF steps), cassettes (:mod:`.cassette`, :mod:`.replay`: record once,
replay strictly) and zero-code capture of agents that call litellm themselves
(:mod:`.zerocode`). Modules are imported on use: litellm is heavy.
"""
