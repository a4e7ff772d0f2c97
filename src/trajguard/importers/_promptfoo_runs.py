"""One promptfoo result row → one imported run: status, criteria, pass, usage, trajectory."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trajguard.importers._model import ImportedCriterion, ImportedRun
from trajguard.importers._pass_rule import PassRule
from trajguard.importers._promptfoo_atif import canonical, number, one_call

__all__ = ["Column", "Judge", "ScenarioName", "imported_run", "scenario_names", "slug"]

_ERROR = 2  # promptfoo's ResultFailureReason.ERROR
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


@dataclass(frozen=True, kw_only=True)
class Column:
    """One prompt-and-provider column of an eval (an entry of ``results.prompts``)."""

    index: int
    variant: str
    template: str
    label: str
    provider: str
    metrics: Mapping[str, Any] = field(default_factory=dict)
    of: int = 1
    """How many prompt columns the eval has."""


@dataclass(frozen=True, kw_only=True)
class Judge:
    """How a row becomes ``passed``: promptfoo's ``success``, a rule on ``score``, or one
    assertion."""

    rule: PassRule | None = None
    scorer: str | None = None

    def sentence(self) -> str:
        by = f"its assertion {self.scorer!r}" if self.scorer else "the test case"
        if self.rule is None:
            if self.scorer:
                return f"a run passes when {by} passed, as promptfoo judged it"
            return (
                "a run passes when promptfoo marked the test case a success (every assertion held)"
            )
        return (
            f"a run passes when the score of {by} is {self.rule.text} (promptfoo's score, 0 to 1)"
        )

    def held(self, component: Mapping[str, Any]) -> bool | None:
        if self.rule is None:
            passed = component.get("pass")
            return passed if isinstance(passed, bool) else None
        return self.rule.holds(component.get("score"))

    def passed(self, row: Mapping[str, Any], criteria: Sequence[ImportedCriterion]) -> bool | None:
        if self.scorer is not None:
            chosen = [c.held for c in criteria if c.name == self.scorer]
            return chosen[0] if chosen else None
        if self.rule is None:
            return bool(row["success"])
        return self.rule.holds(row.get("score"))


@dataclass(frozen=True, kw_only=True)
class ScenarioName:
    scenario: str
    description: str


def scenario_names(rows: Sequence[tuple[int, Mapping[str, Any]]]) -> list[ScenarioName]:
    """Each row's scenario: its test case's ``description`` (made a name), else ``test-<k>``,
    ``k`` the test case's place among the eval's distinct test cases (so the same under any
    ``--repeat``); a description shared by different test cases gets ``-<k>``."""
    keys = [_test_key(row) for _, row in rows]
    order = {key: k for k, key in enumerate(dict.fromkeys(keys))}
    described = {key: _description(row) for key, (_, row) in zip(keys, rows, strict=True)}
    slugs = {key: slug(text) for key, text in described.items()}
    shared = Counter(made for made in slugs.values() if made)
    names = {}
    for key, k in order.items():
        made = slugs[key]
        if not made:
            names[key] = f"test-{k}"
        else:
            names[key] = made if shared[made] == 1 else f"{made[:120]}-{k}"
    return [
        ScenarioName(scenario=names[key], description=described[key] or _vars_text(row))
        for key, (_, row) in zip(keys, rows, strict=True)
    ]


def imported_run(
    row: Mapping[str, Any],
    *,
    scenario: str,
    run_index: int,
    column: Column,
    judge: Judge,
    version: str,
    ref: str,
) -> ImportedRun:
    """The run of one result row."""
    response = row.get("response") if isinstance(row.get("response"), dict) else {}
    assert isinstance(response, dict)
    provider = row.get("provider")
    model = provider.get("id") if isinstance(provider, dict) else None
    model = model if isinstance(model, str) and model else column.provider or "unknown"
    criteria = tuple(_criteria(row, judge))
    has_output = "output" in response and response.get("output") is not None
    error = row.get("error") if isinstance(row.get("error"), str) else None
    usage = _usage(response, row)
    latency = number(row.get("latencyMs"))
    common: dict[str, Any] = {
        "scenario": scenario,
        "run_index": run_index,
        "variant": column.variant,
        "model": model,
        "criteria": criteria,
        "cost_usd": number(row.get("cost")),
        "duration_s": latency / 1000 if latency is not None else None,
        "source_ref": ref,
        "config_hash": _config_hash(row, column),
    }
    if row.get("failureReason") == _ERROR and not has_output:
        message = response.get("error") if isinstance(response.get("error"), str) else error
        return ImportedRun(
            **common,
            status="harness_error",
            passed=None,
            crashed=None,
            error_type="provider_error",
            error_message=message,
        )
    trajectory = one_call(row, response, model=model, version=version, usage=usage)
    grading_error = row.get("failureReason") == _ERROR
    return ImportedRun(
        **common,
        status="ok",
        passed=False if grading_error else judge.passed(row, criteria),
        crashed=False,
        trajectory=trajectory,
        error_type="grading_error" if grading_error else None,
        error_message=error if grading_error else None,
    )


def _criteria(row: Mapping[str, Any], judge: Judge) -> list[ImportedCriterion]:
    grading = row.get("gradingResult")
    components = grading.get("componentResults") if isinstance(grading, dict) else None
    if not isinstance(components, list):
        return []
    named = []
    for component in components:
        if not isinstance(component, dict):
            continue
        assertion = component.get("assertion")
        assertion = assertion if isinstance(assertion, dict) else {}
        metric = assertion.get("metric")
        kind = assertion.get("type")
        name = metric if isinstance(metric, str) and metric else str(kind or "assertion")
        named.append((name, component))
    totals = Counter(name for name, _ in named)
    seen: Counter[str] = Counter()
    criteria = []
    for name, component in named:
        seen[name] += 1
        label = name if totals[name] == 1 else f"{name}#{seen[name]}"
        score = component.get("score")
        reason = component.get("reason")
        criteria.append(
            ImportedCriterion(
                name=label,
                held=judge.held(component),
                value="" if score is None else _text_value(score),
                reason=reason if isinstance(reason, str) else "",
            )
        )
    return criteria


def _usage(response: Mapping[str, Any], row: Mapping[str, Any]) -> tuple[int | None, int | None]:
    usage = response.get("tokenUsage")
    if not isinstance(usage, dict):
        usage = fallback if isinstance(fallback := row.get("tokenUsage"), dict) else {}
    prompt, completion = usage.get("prompt"), usage.get("completion")
    return (
        prompt if isinstance(prompt, int) else None,
        completion if isinstance(completion, int) else None,
    )


def _test_key(row: Mapping[str, Any]) -> str:
    test = row.get("testCase") if isinstance(row.get("testCase"), dict) else {}
    assert isinstance(test, dict)
    return canonical(
        {
            "description": test.get("description"),
            "vars": row.get("vars", test.get("vars")),
            "assert": test.get("assert"),
        }
    )


def _description(row: Mapping[str, Any]) -> str:
    test = row.get("testCase")
    text = test.get("description") if isinstance(test, dict) else None
    return text.strip() if isinstance(text, str) else ""


def _vars_text(row: Mapping[str, Any]) -> str:
    variables = row.get("vars")
    if not isinstance(variables, dict) or not variables:
        return ""
    return ", ".join(f"{k}={_text_value(v)}" for k, v in variables.items())[:200]


def slug(text: str) -> str:
    """``text`` made a name: other characters than letters, digits, ``_ . -`` become ``-``."""
    return _UNSAFE.sub("-", text).strip("-.")[:128].rstrip("-.")


def _config_hash(row: Mapping[str, Any], column: Column) -> str:
    test = row.get("testCase") if isinstance(row.get("testCase"), dict) else {}
    assert isinstance(test, dict)
    defined = {
        "prompt": column.template,
        "provider": column.provider,
        "vars": row.get("vars"),
        "assert": test.get("assert"),
    }
    return hashlib.sha256(canonical(defined).encode()).hexdigest()[:16]


def _text_value(value: object) -> str:
    return value if isinstance(value, str) else canonical(value)
