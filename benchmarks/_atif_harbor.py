"""Harbor's side of the ATIF conformance harness (run by atif_conformance.py in .harbor-venv).

It needs Python >= 3.12 and the ``harbor`` package, so it runs in its own venv and talks to the
harness through files and JSON on stdout:

    python _atif_harbor.py version
    python _atif_harbor.py generate OUT_DIR --seed 11 --models 90 --converted 36
    python _atif_harbor.py validate LIST_FILE      # one path per line; prints the verdicts

``generate`` builds trajectories with Harbor's own pydantic models (random runs of ATIF v1.5 to
v1.8: tool calls, content parts, embedded subagents, file refs, continuations) and with three of
its bundled agent converters (mini-swe-agent, SWE-agent, Cline) fed random native logs written
here; mutations of them are made by _atif_mutations.py. ``validate`` runs Harbor's
``TrajectoryValidator`` on each file, as Harbor's CLI does (local media paths included).
"""

from __future__ import annotations

import argparse
import copy
import importlib.metadata
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network from litellm imports

from _atif_mutations import MUTATIONS
from _atif_native_logs import cline_log, mini_swe_agent_log, swe_agent_log
from harbor.agents.installed.cline.trajectory import convert_messages_to_trajectory
from harbor.agents.installed.mini_swe_agent import convert_mini_swe_agent_to_atif
from harbor.agents.installed.swe_agent import convert_swe_agent_to_atif
from harbor.models.trajectories import (
    Agent,
    AudioSource,
    ContentPart,
    FinalMetrics,
    ImageSource,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    SubagentTrajectoryRef,
    ToolCall,
    Trajectory,
)
from harbor.utils.trajectory_validator import TrajectoryValidator

VERSIONS = ("ATIF-v1.5", "ATIF-v1.6", "ATIF-v1.7", "ATIF-v1.8")
WORDS = ("ls -la", "héllo ✓", "<function f at 0x7f3c2a1b9d00>", "", "two\nlines", '{"a": 1}', "ok")
TOOLS = ("bash", "read_file", "search", "calculator")


class RunBuilder:
    """Random runs built with Harbor's models, using only what ``version`` has."""

    def __init__(
        self, rng: random.Random, version: str, folder: Path, *, file_refs: bool = True
    ) -> None:
        self.rng = rng
        self.file_refs = file_refs
        self.minor = int(version.rsplit(".", 1)[1])
        self.version = version
        self.folder = folder
        self.files: list[dict[str, Any]] = []  # (name, document) of trajectories it refers to

    def text(self) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(0, 3)))

    def timestamp(self) -> str | None:
        r = self.rng
        day = f"2025-0{r.randint(1, 9)}-1{r.randint(0, 9)}"
        return r.choice(
            [
                None,
                f"{day}T10:0{r.randint(0, 9)}:00Z",
                f"{day}T10:00:00.{r.randint(0, 999999):06d}+02:00",
                f"{day}T23:59:59",
                day,
            ]
        )

    def media(self, kind: str) -> ContentPart:
        r = self.rng
        if r.random() < 0.5:
            path = f"https://media.example/{r.randint(1, 99)}.{'png' if kind == 'image' else 'wav'}"
        else:
            path = f"media/{kind}-{r.randint(1, 10**6)}.bin"
            (self.folder / "media").mkdir(exist_ok=True)
            (self.folder / path).write_bytes(b"\0")
        if kind == "image":
            mime = r.choice(["image/png", "image/jpeg", "image/webp", "image/gif"])
            return ContentPart(type="image", source=ImageSource(media_type=mime, path=path))
        mime = r.choice(["audio/wav", "audio/mpeg", "audio/mp3", "audio/ogg", "audio/x-m4a"])
        duration = r.choice([None, round(r.uniform(0, 30), 2)])
        source = AudioSource(media_type=mime, path=path, duration_sec=duration)
        return ContentPart(type="audio", source=source)

    def content(self) -> str | list[ContentPart]:
        if self.minor < 6 or self.rng.random() < 0.6:
            return self.text()
        kinds = ["text", "image"] + (["audio"] if self.minor >= 8 else [])
        parts = []
        for _ in range(self.rng.randint(1, 3)):
            kind = self.rng.choice(kinds)
            parts.append(
                ContentPart(type="text", text=self.text()) if kind == "text" else self.media(kind)
            )
        return parts

    def metrics(self) -> Metrics:
        r = self.rng
        return Metrics(
            prompt_tokens=r.randint(0, 900),
            completion_tokens=r.randint(0, 90),
            cached_tokens=r.choice([None, r.randint(0, 50)]),
            cost_usd=r.choice([None, round(r.random() / 100, 6)]),
            logprobs=r.choice([None, [round(-r.random(), 3) for _ in range(3)]]),
            completion_token_ids=r.choice([None, [r.randint(0, 5000) for _ in range(3)]]),
            extra=r.choice([None, {"reasoning_tokens": r.randint(0, 9)}]),
        )

    def agent_step(self, step_id: int, children: list[str]) -> Step:
        r = self.rng
        calls = [
            ToolCall(
                tool_call_id=f"call_{r.getrandbits(40):010x}",
                function_name=r.choice(TOOLS),
                arguments=r.choice([{}, {"q": self.text()}, {"path": "/tmp/x", "opts": {"n": 2}}]),
                extra={"timeout_s": 30} if self.minor >= 7 and r.random() < 0.2 else None,
            )
            for _ in range(r.randint(0, 3))
        ]
        results = [
            ObservationResult(
                source_call_id=call.tool_call_id,
                content=self.content(),
                extra={"score": 0.5} if self.minor >= 7 and r.random() < 0.2 else None,
            )
            for call in calls
            if r.random() < 0.8
        ]
        if r.random() < 0.15:
            results.append(ObservationResult(content="feedback without a call"))
        for target in children:
            results.append(
                ObservationResult(content="delegated", subagent_trajectory_ref=[self.ref(target)])
            )
        if self.file_refs and self.minor < 7 and r.random() < 0.2:
            results.append(self.file_ref())
        count = r.choice([None, 1, 1, 2, 0]) if self.minor >= 7 else None
        dispatch = count == 0
        return Step(
            step_id=step_id,
            timestamp=self.timestamp(),
            source="agent",
            model_name=r.choice([None, "gpt-test", "claude-test"]),
            reasoning_effort=r.choice([None, "high", 0.5, 2]),
            message=self.content(),
            reasoning_content=None if dispatch else r.choice([None, self.text()]),
            tool_calls=calls or None,
            observation=Observation(results=results) if results else None,
            metrics=None if dispatch else r.choice([None, self.metrics()]),
            llm_call_count=count,
            extra=r.choice([None, {"generation_id": f"gen-{r.getrandbits(32):x}"}]),
        )

    def ref(self, target: str) -> SubagentTrajectoryRef:
        path = f"{target}.json" if self.rng.random() < 0.3 else None
        return SubagentTrajectoryRef(trajectory_id=target, trajectory_path=path)

    def file_ref(self) -> ObservationResult:
        """A subagent in its own file, joined by session id (the pre-v1.7 form)."""
        session = f"sess-{self.rng.getrandbits(32):x}"
        name = f"sub-{session}.json"
        child_builder = RunBuilder(self.rng, self.version, self.folder, file_refs=False)
        child = child_builder.trajectory(depth=2, session=session, copied=self.rng.choice([0, 3]))
        self.files.append({"name": name, "document": child.to_json_dict()})
        ref = SubagentTrajectoryRef(session_id=session, trajectory_path=name)
        return ObservationResult(content="summary", subagent_trajectory_ref=[ref])

    def trajectory(self, depth: int = 0, session: str | None = None, copied: int = 0) -> Trajectory:
        r = self.rng
        children: list[Trajectory] = []
        if self.minor >= 7 and depth < 2:
            for index in range(r.choice([0, 0, 1, 2])):
                child = self.trajectory(depth + 1)
                child.trajectory_id = f"traj-{depth}-{index}-{r.getrandbits(24):x}"
                children.append(child)
        steps: list[Step] = []
        pending = [c.trajectory_id or "" for c in children]
        for _ in range(r.randint(1, 6)):
            number = len(steps) + 1
            if r.random() < 0.35:
                source = r.choice(["system", "user"]) if number == 1 else "user"
                steps.append(
                    Step(
                        step_id=number,
                        timestamp=self.timestamp(),
                        source=source,
                        message=self.content(),
                    )
                )
            else:
                refer, pending = pending[:1], pending[1:]
                steps.append(self.agent_step(number, refer))
        for target in pending:
            steps.append(self.agent_step(len(steps) + 1, [target]))
        for step in steps[:copied]:
            step.is_copied_context = True
        summed = [s.metrics for s in steps if s.metrics]
        final = None
        if r.random() < 0.7:
            extra_tokens = r.choice([0, 0, r.randint(1, 500)])  # subagent or whole-run totals
            final = FinalMetrics(
                total_prompt_tokens=sum(m.prompt_tokens or 0 for m in summed) + extra_tokens,
                total_completion_tokens=sum(m.completion_tokens or 0 for m in summed),
                total_cost_usd=r.choice([None, 0.01]),
                total_steps=r.choice([None, len(steps)]),
            )
        return Trajectory(
            schema_version=self.version,
            session_id=session or r.choice([None, f"sess-{r.getrandbits(32):x}"]),
            agent=Agent(
                name=r.choice(["terminus-like", "coder", "helper"]),
                version="1.0",
                model_name=r.choice([None, "gpt-test"]),
                tool_definitions=r.choice(
                    [None, [{"type": "function", "function": {"name": "bash"}}]]
                ),
            ),
            steps=steps,
            notes=r.choice([None, "totals include the subagents' tokens"]),
            final_metrics=final,
            continued_trajectory_ref=r.choice([None, None, "trajectory.cont-1.json"]),
            extra=r.choice([None, {"harness": "atif-conformance"}]),
            subagent_trajectories=children or None,
        )


def generate(
    out: Path, seed: int, models: int, converted: int, mutated: int
) -> list[dict[str, Any]]:
    """Write the generated trajectories to ``out``; return their manifest entries."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    manifest: list[dict[str, Any]] = []

    def write(name: str, document: dict[str, Any], origin: str) -> None:
        (out / name).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        manifest.append({"file": name, "origin": origin, "version": document.get("schema_version")})

    for index in range(models):
        version = VERSIONS[index % len(VERSIONS)]
        builder = RunBuilder(rng, version, out)
        copied = rng.choice([0, 0, 0, 2])  # a continuation: the history it was handed
        write(
            f"harbor-models-{index:03d}.json",
            builder.trajectory(copied=copied).to_json_dict(),
            "harbor models",
        )
        for extra_file in builder.files:
            write(extra_file["name"], extra_file["document"], "harbor models (file ref)")
    converters = (
        (
            "mini-swe-agent",
            lambda: convert_mini_swe_agent_to_atif(mini_swe_agent_log(rng), "sess-mini"),
        ),
        ("swe-agent", lambda: convert_swe_agent_to_atif(swe_agent_log(rng), "sess-swe")),
        (
            "cline",
            lambda: convert_messages_to_trajectory(
                cline_log(rng), agent_name="cline", agent_version="3"
            ),
        ),
    )
    for index in range(converted):
        name, convert = converters[index % len(converters)]
        write(
            f"harbor-{name}-{index:03d}.json", convert().to_json_dict(), f"harbor converter {name}"
        )
    bases = [json.loads((out / entry["file"]).read_text(encoding="utf-8")) for entry in manifest]
    for index in range(mutated):
        kind = list(MUTATIONS)[index % len(MUTATIONS)]
        document = copy.deepcopy(rng.choice(bases))
        change = MUTATIONS[kind](document, rng, out)
        if change is not None:
            write(f"mutated-{index:03d}.json", document, f"mutated: {kind}")
            manifest[-1]["detail"] = change
    valid = json.dumps(bases[0], ensure_ascii=False)
    raw = [
        ('{"schema_version": "ATIF-v1.8", "agent": ', "utf-8"),
        ("[]", "utf-8"),
        ("", "utf-8"),
        ("\ufeff" + valid, "utf-8"),  # a byte-order mark
        (valid[:-1] + ', "notes": "caf\u00e9"}', "latin-1"),  # not UTF-8
    ]
    for index, (text, encoding) in enumerate(raw):
        (out / f"mutated-raw-{index}.json").write_bytes(text.encode(encoding, "replace"))
        entry = {
            "file": f"mutated-raw-{index}.json",
            "origin": "mutated: not a JSON object in UTF-8",
        }
        manifest.append({**entry, "version": None})
    return manifest


def validate(files: list[str]) -> dict[str, dict[str, Any]]:
    verdicts: dict[str, dict[str, Any]] = {}
    for file in files:
        validator = TrajectoryValidator()
        try:
            valid = validator.validate(Path(file))
            errors = validator.get_errors()
        except Exception as exc:  # Harbor's CLI reports these as failures too
            valid, errors = False, [f"{type(exc).__name__}: {exc}"]
        verdicts[file] = {"valid": valid, "errors": errors[:5]}
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("version")
    gen = commands.add_parser("generate")
    gen.add_argument("out", type=Path)
    gen.add_argument("--seed", type=int, default=11)
    gen.add_argument("--models", type=int, default=90)
    gen.add_argument("--converted", type=int, default=36)
    gen.add_argument("--mutated", type=int, default=130)
    val = commands.add_parser("validate")
    val.add_argument("list_file", type=Path)
    args = parser.parse_args()
    if args.command == "version":
        result: Any = {
            "harbor": importlib.metadata.version("harbor"),
            "python": sys.version.split()[0],
        }
    elif args.command == "generate":
        result = generate(args.out, args.seed, args.models, args.converted, args.mutated)
    else:
        result = validate(args.list_file.read_text(encoding="utf-8").splitlines())
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
