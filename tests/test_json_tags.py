"""A tagged union in a result document (trajguard._json_tags): the tag picks the one record type
that is read, an unknown or missing tag is refused where it is, and the JSON Schema says which
``name`` means which type and refuses what the reader refuses. comparison.json's ``design`` is
the one such field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from trajguard.comparison import FixedRecord, SequentialRecord
from trajguard.errors import InvalidResultData
from trajguard.results import SCHEMA_FILE, read_document

SAMPLE = Path(__file__).resolve().parents[1] / "reports" / "sample-nightly" / "comparison.json"


def _with_design(design: object) -> str:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    data["design"] = design
    return json.dumps(data)


def _schema_accepts(text: str) -> bool:
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    return validator.is_valid(json.loads(text))


def test_the_tag_picks_the_record_type() -> None:
    text = _with_design({"name": "fixed", "unit": "runs per variant"})
    assert read_document(text).design == FixedRecord(unit="runs per variant")
    assert _schema_accepts(text)


@pytest.mark.parametrize(
    ("design", "path", "words"),
    [
        ({"name": "zigzag", "unit": "runs"}, "$.design", "'zigzag'"),
        ({"unit": "runs"}, "$.design", "discriminator 'name'"),
        ({"name": "sequential", "unit": "runs"}, "$.design.sequential.outcome", "missing field"),
        ({"name": "fixed", "unit": "runs", "outcome": {}}, "$.design.fixed.outcome", "unknown"),
    ],
)
def test_a_wrong_tag_or_a_record_that_does_not_fit_it_is_refused_where_it_is(
    design: dict[str, str], path: str, words: str
) -> None:
    with pytest.raises(InvalidResultData) as raised:
        read_document(_with_design(design))
    assert raised.value.path == path
    assert words in raised.value.message
    assert not _schema_accepts(_with_design(design))  # the shipped schema says the same


def test_the_schema_maps_each_name_to_its_record() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    design = schema["properties"]["design"]
    assert design["discriminator"]["propertyName"] == "name"
    mapping = design["discriminator"]["mapping"]
    assert set(mapping) == {"fixed", "sequential", "escalation", "budget"}
    for name, ref in mapping.items():
        record = schema["$defs"][ref.rsplit("/", 1)[1]]
        assert record["properties"]["name"]["const"] == name
    assert schema["$defs"]["SequentialRecord"]["required"] == ["name", "outcome"]
    assert schema["$defs"]["FixedRecord"]["required"] == ["name"]  # the reader needs the tag
    assert SequentialRecord.__name__ in {r.rsplit("/", 1)[1] for r in mapping.values()}


def test_the_marker_does_not_import_pydantic() -> None:
    code = "import sys, trajguard._json_tags; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
