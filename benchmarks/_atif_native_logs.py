"""Native logs of three agents, as their Harbor converters read them (conformance harness).

Written from the formats the converters document: mini-swe-agent's trajectory (chat-completions
messages with usage under ``extra.response.usage``), SWE-agent's ``.traj`` (``trajectory``
entries of response / thought / action / observation) and Cline's ``messages.json`` (content
blocks: text, thinking, tool_use, tool_result). Random content; no Harbor import needed.
"""

from __future__ import annotations

import json
import random
from typing import Any

WORDS = ("ls -la", "héllo ✓", "<function f at 0x7f3c2a1b9d00>", "", "two\nlines", '{"a": 1}', "ok")


def mini_swe_agent_log(rng: random.Random) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Fix the failing test.", "timestamp": 1735725600.5},
    ]
    for turn in range(rng.randint(1, 4)):
        usage = {"prompt_tokens": rng.randint(10, 900), "completion_tokens": rng.randint(1, 80)}
        if rng.random() < 0.5:
            usage["prompt_tokens_details"] = {"cached_tokens": rng.randint(0, 10)}
        call = {
            "id": f"call_{turn}_{rng.getrandbits(16):x}",
            "function": {"name": "bash", "arguments": json.dumps({"command": "ls"})},
        }
        messages.append(
            {
                "role": "assistant",
                "content": rng.choice(["THOUGHT: look around", ""]),
                "tool_calls": [call] if rng.random() < 0.7 else None,
                "extra": {"response": {"usage": usage}},
            }
        )
        messages.append({"role": rng.choice(["tool", "user"]), "content": rng.choice(WORDS)})
    return {
        "info": {
            "config": {"model": {"model_name": "gpt-test"}},
            "mini_version": "2.0",
            "model_stats": {"instance_cost": rng.choice([0, 0.12])},
        },
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": messages,
    }


def swe_agent_log(rng: random.Random) -> dict[str, Any]:
    entries = [
        {
            "response": f"step {i}",
            "thought": rng.choice(["", "I should list files"]),
            "action": rng.choice(["", "ls -la", "edit file.py"]),
            "observation": rng.choice(["", "file.py", "ok"]),
            "query": [{"role": "system", "content": "You are SWE-agent."}] if i == 0 else [],
        }
        for i in range(rng.randint(1, 4))
    ]
    info = {
        "model_name": "gpt-test",
        "input_tokens": rng.randint(0, 999),
        "output_tokens": rng.randint(0, 99),
        "total_cost": rng.choice([0, 0.2]),
    }
    return {"environment": "swe_main", "trajectory": entries, "info": info}


def cline_log(rng: random.Random) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Rename the function."}],
            "ts": 1735725600000,
        }
    ]
    for turn in range(rng.randint(1, 3)):
        use_id = f"toolu_{turn}_{rng.getrandbits(16):x}"
        blocks: list[dict[str, Any]] = [{"type": "text", "text": rng.choice(["Reading", "Done"])}]
        if rng.random() < 0.5:
            blocks.insert(0, {"type": "thinking", "thinking": "plan"})
        if rng.random() < 0.7:
            blocks.append(
                {"type": "tool_use", "id": use_id, "name": "read_file", "input": {"path": "a.py"}}
            )
            result = {
                "type": "tool_result",
                "tool_use_id": use_id,
                "content": rng.choice(["def f(): ...", [{"type": "text", "text": "x"}]]),
            }
            follow = [{"role": "user", "content": [result], "ts": 1735725601000 + turn}]
        else:
            follow = []
        metrics = {
            "inputTokens": rng.randint(1, 500),
            "outputTokens": rng.randint(1, 50),
            "cacheReadTokens": rng.randint(0, 9),
            "cost": 0.001,
        }
        messages.append(
            {
                "role": "assistant",
                "content": blocks,
                "modelInfo": {"id": "claude-test"},
                "metrics": metrics if rng.random() < 0.8 else None,
            }
        )
        messages.extend(follow)
    return {"sessionId": f"cline-{rng.getrandbits(24):x}", "messages": messages}
