"""comparison.json of schema version 2 (before the design record was tagged: one optional field
per design) still reads, as the same document: the files under data/ were written by trajguard at
e1bc397, the two samples as they were committed there and one document of each design with a
record of its own, each beside the markdown that version rendered from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajguard.comparison import (
    BudgetRecord,
    EscalationRecord,
    FixedRecord,
    SequentialRecord,
)
from trajguard.errors import InvalidResultData
from trajguard.report import render_markdown
from trajguard.results import DOCUMENT_SCHEMA_VERSION, document_json, read_document

DATA = Path(__file__).parent / "data"
REPORTS = Path(__file__).resolve().parents[2] / "reports"
RECORDS = {
    "nightly": FixedRecord,
    "ab": FixedRecord,
    "sequential": SequentialRecord,
    "escalation": EscalationRecord,
    "budget": BudgetRecord,
}


def _rendered_then(name: str) -> str:
    """The markdown version 2 rendered from the file."""
    if name in ("nightly", "ab"):
        page = "ab.md" if name == "ab" else "report.md"
        return (REPORTS / f"sample-{name}" / page).read_text(encoding="utf-8")
    return (DATA / f"report-v2-{name}.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_version_2_document_reads_and_renders_the_same_report(name: str) -> None:
    text = (DATA / f"comparison-v2-{name}.json").read_text(encoding="utf-8")
    assert json.loads(text)["schema_version"] == 2
    document = read_document(text)
    assert type(document.design) is RECORDS[name]
    assert render_markdown(document) == _rendered_then(name)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_version_2_design_is_written_as_the_one_record_its_name_tags(name: str) -> None:
    text = (DATA / f"comparison-v2-{name}.json").read_text(encoding="utf-8")
    old = json.loads(text)["design"]
    new = json.loads(document_json(read_document(text)))
    assert new["schema_version"] == DOCUMENT_SCHEMA_VERSION == 3
    own = {
        "fixed": {},
        "sequential": {"outcome": old["sequential"]},
        "escalation": {"plan": old["escalation"], "stops": old["stops"]},
        "budget": {"outcome": old["budget"]},
    }[old["name"]]
    assert new["design"] == {"name": old["name"], "unit": old["unit"], **own}
    kept = {"escalation": ("escalation", "stops")}.get(old["name"], (old["name"],))
    empty = {"sequential": None, "escalation": None, "budget": None, "stops": []}
    assert {k: old[k] for k in empty if k not in kept} == {  # the other designs' slots
        k: v for k, v in empty.items() if k not in kept
    }


def test_a_version_2_design_without_its_own_record_is_refused_where_it_is() -> None:
    data = json.loads((DATA / "comparison-v2-sequential.json").read_text(encoding="utf-8"))
    data["design"]["sequential"] = None
    with pytest.raises(InvalidResultData) as raised:
        read_document(json.dumps(data))
    assert raised.value.path is not None and raised.value.path.startswith("$.design")


@pytest.mark.parametrize("version", [1, 4, "2"])
def test_another_version_is_refused_naming_the_ones_read(version: object) -> None:
    data = json.loads((DATA / "comparison-v2-nightly.json").read_text(encoding="utf-8"))
    data["schema_version"] = version
    with pytest.raises(InvalidResultData) as raised:
        read_document(json.dumps(data))
    assert "reads version 3 or 2" in raised.value.message
    assert raised.value.path == "$.schema_version"
