"""An Inspect sample's scores → criteria and ``passed``.

Default rule (per value type, as Inspect's ``value_to_float`` reads values): a scorer's value
holds when it is worth full credit — ``C``; ``true``/``yes``; a number ≥ 1. ``I``, ``N``,
``false``/``no`` and numbers below 1 fail; ``P`` (partial credit, 0.5) fails. So when every
value is C or I (or a boolean, or 0/1) a scenario's pass rate equals Inspect's ``accuracy()``
of that sample (the mean over its epochs). Other text, and list values, are not decided. A dict
value (a scorer of several values) gives one criterion per key, ``<scorer>/<key>``.

``--pass-if RULE`` replaces the default with a rule applied to each value as the log writes it
(``==C``, ``in C,P``, ``>=0.5``); ``--scorer NAME`` lets that scorer alone decide, and
``--scorer NAME/KEY`` one key of a dict scorer (the criterion of that name).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trajguard.importers._model import ImportedCriterion
from trajguard.importers._pass_rule import PassRule, as_number

__all__ = ["DEFAULT_RULE", "credit", "criterion_names", "judge"]

DEFAULT_RULE = (
    "a sample passes when every scorer's value is worth full credit: C, true or yes, or a "
    "number ≥ 1 (I, N, P, false, no and numbers below 1 fail; other text is not decided), "
    "so a pass rate equals Inspect's accuracy() when the values are C or I and no sample "
    "errored or hit a limit (Inspect leaves errored samples out and scores a limited one; "
    "trajguard fails both)"
)

_CREDIT = {"c": 1.0, "i": 0.0, "p": 0.5, "n": 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def criterion_names(scores: Mapping[str, Any]) -> set[str]:
    """The names ``--scorer`` may take for these scores: each scorer's, and ``<scorer>/<key>``
    for each key of a dict value."""
    names = set()
    for name, score in scores.items():
        names.add(str(name))
        value = score.get("value") if isinstance(score, Mapping) else None
        if isinstance(value, Mapping):
            names.update(f"{name}/{key}" for key in value)
    return names


def judge(
    scores: Mapping[str, Any], *, rule: PassRule | None, scorer: str | None
) -> tuple[tuple[ImportedCriterion, ...], bool | None]:
    """One criterion per scorer (per key of a dict value), in the log's order, and whether the
    sample passed. A scorer other than ``scorer`` (when one is named) is kept with its value
    but decides nothing (``held`` is ``None``). ``passed`` is False when a deciding criterion
    fails, True when every one holds, else ``None`` (not judged)."""
    found: list[ImportedCriterion] = []
    decided: list[bool | None] = []
    for name, score in scores.items():
        if not isinstance(score, Mapping):
            continue
        value = score.get("value")
        reason = _reason(score)
        items = value.items() if isinstance(value, Mapping) else [(None, value)]
        for key, item in items:
            label = name if key is None else f"{name}/{key}"
            deciding = scorer is None or scorer in (name, label)
            held = _holds(item, rule) if deciding else None
            if deciding:
                decided.append(held)
            found.append(ImportedCriterion(name=label, held=held, value=_text(item), reason=reason))
    if not decided or (None in decided and False not in decided):
        return tuple(found), None
    return tuple(found), all(decided)


def _holds(value: Any, rule: PassRule | None) -> bool | None:
    if rule is not None:
        return rule.holds(value)
    worth = credit(value)
    return None if worth is None else worth >= 1.0


def credit(value: Any) -> float | None:
    """What Inspect's ``value_to_float`` makes of a value (``C`` 1, ``P`` 0.5, ``I`` 0, a
    number itself); ``None`` for other text."""
    if isinstance(value, str) and value.strip().lower() in _CREDIT:
        return _CREDIT[value.strip().lower()]
    return as_number(value)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _reason(score: Mapping[str, Any]) -> str:
    explanation = score.get("explanation")
    if explanation:
        return str(explanation)
    answer = score.get("answer")
    return f"answer: {answer}" if answer else ""
