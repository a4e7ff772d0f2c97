"""A small Harbor agent: asks an OpenAI-compatible model, writes its answer with one tool call.

Harbor loads it by import path (``--agent-import-path answer_agent:AnswerAgent``) and runs it
on the host; its one tool (``write_answer``) runs in the environment through Harbor's
``environment.exec``. It records what happened as ATIF with Harbor's own trajectory models in
``<trial>/agent/trajectory.json`` and the token usage in Harbor's ``AgentContext``.

Agent kwargs: ``endpoint`` (the OpenAI-compatible /v1 base URL), ``style`` (the system
prompt), ``temperature``, ``max_tokens``; ``linger`` and ``silent``, comma-separated task
names: on a ``linger`` task the agent keeps working after it has written its answer and its
trajectory, until Harbor's agent timeout stops it (a timed-out trial whose answer the verifier
still grades); on a ``silent`` task it writes its answer but no trajectory (as an agent that
records none).
Runs in Harbor's venv (Python >= 3.12), not in trajguard's.
"""

from __future__ import annotations

import asyncio
import json
import random
import shlex
import urllib.request
from datetime import UTC, datetime
from typing import Any

from harbor.agents.base import BaseAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)

TOOL = {
    "type": "function",
    "function": {
        "name": "write_answer",
        "description": "Write the final answer to /app/answer.txt",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
}


def _now() -> str:
    return datetime.now(UTC).isoformat()


class AnswerAgent(BaseAgent):
    def __init__(
        self,
        *args: Any,
        endpoint: str = "http://127.0.0.1:8000/v1",
        style: str = "Answer with one word.",
        temperature: float = 0.8,
        max_tokens: int = 24,
        linger: str = "",
        silent: str = "",
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.linger = {name for name in linger.split(",") if name}
        self.silent = {name for name in silent.split(",") if name}
        self.endpoint = endpoint.rstrip("/")
        self.style = style
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)

    @staticmethod
    def name() -> str:
        return "answer-agent"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment: BaseEnvironment) -> None:
        pass

    def _ask(self, instruction: str) -> dict[str, Any]:
        model = (self.model_name or "smollm2").split("/", 1)[-1]
        body = {
            "model": model,
            "messages": [
                {"role": "system", "content": self.style},
                {"role": "user", "content": instruction},
            ],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": random.randrange(2**31),
        }
        request = urllib.request.Request(
            f"{self.endpoint}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            return dict(json.load(response))

    def _task(self) -> str:
        """The task of this trial (Harbor names a trial's folder ``<task>__<id>``)."""
        return str(self.logs_dir.parent.name).split("__", 1)[0]

    async def run(
        self, instruction: str, environment: BaseEnvironment, context: AgentContext
    ) -> None:
        steps = [
            Step(step_id=1, timestamp=_now(), source="system", message=self.style),
            Step(step_id=2, timestamp=_now(), source="user", message=instruction),
        ]
        reply = await asyncio.to_thread(self._ask, instruction)
        answer = str(reply["choices"][0]["message"].get("content") or "").strip()
        usage = reply.get("usage") or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        context.n_input_tokens = prompt
        context.n_output_tokens = completion
        result = await environment.exec(f"printf '%s\\n' {shlex.quote(answer)} > /app/answer.txt")
        if result.return_code != 0:
            raise RuntimeError(f"write_answer failed (exit {result.return_code}): {result.stderr}")
        steps.append(
            Step(
                step_id=3,
                timestamp=_now(),
                source="agent",
                model_name=reply.get("model") or self.model_name,
                message=answer,
                tool_calls=[
                    ToolCall(
                        tool_call_id="call_1",
                        function_name="write_answer",
                        arguments={"text": answer},
                    )
                ],
                observation=Observation(
                    results=[
                        ObservationResult(
                            source_call_id="call_1",
                            content=f"exit {result.return_code}" + (result.stderr or ""),
                        )
                    ]
                ),
                metrics=Metrics(prompt_tokens=prompt, completion_tokens=completion),
            )
        )
        trajectory = Trajectory(
            session_id=str(self.logs_dir.parent.name),
            agent=Agent(
                name=self.name(),
                version=self.version(),
                model_name=self.model_name,
                tool_definitions=[TOOL],
            ),
            steps=steps,
            final_metrics=FinalMetrics(
                total_prompt_tokens=prompt, total_completion_tokens=completion, total_steps=3
            ),
        )
        if self._task() not in self.silent:
            (self.logs_dir / "trajectory.json").write_text(
                json.dumps(trajectory.to_json_dict(), indent=2)
            )
        if self._task() in self.linger:
            await asyncio.Event().wait()  # never set: Harbor's agent timeout cancels it
