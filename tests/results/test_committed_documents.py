"""Every comparison.json committed in the repository reads, validates against the shipped
schema and is written again byte for byte; every set a document holds is written sorted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from trajguard.comparison import FloorBars
from trajguard.results import SCHEMA_FILE, ReportDocument, TrendFacts, document_json, read_document
from trajguard.results._codec import adapter

REPO = Path(__file__).resolve().parents[2]
COMMITTED = sorted(
    p
    for folder in ("reports", "docs", "tests", "benchmarks")
    for p in (REPO / folder).rglob("comparison.json")
)


def test_the_committed_documents_are_found():
    names = {p.relative_to(REPO).as_posix() for p in COMMITTED}
    assert {"reports/sample-nightly/comparison.json", "reports/sample-ab/comparison.json"} <= names


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.relative_to(REPO).as_posix())
def test_a_committed_document_reads_validates_and_is_written_again_byte_for_byte(path: Path):
    text = path.read_text(encoding="utf-8")
    document = read_document(text, file=path)
    assert document_json(document) == text
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(json.loads(text))


def _sets(node: Any) -> list[dict[str, Any]]:
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") in ("set", "frozenset"):
                found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@pytest.mark.parametrize("tp", [ReportDocument, TrendFacts, FloorBars])
def test_every_set_in_a_document_is_written_sorted(tp: type):
    """A ``frozenset`` field without the JsonSet marker (declare it ``SortedNames``) would be
    written in its iteration order, which differs from process to process."""
    sets = _sets(adapter(tp).core_schema)
    assert all(s.get("serialization") for s in sets), sets
    if tp is ReportDocument:
        assert len(sets) >= 2  # CompareConfig's gating and crash_statuses
