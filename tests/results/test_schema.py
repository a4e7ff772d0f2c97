"""The JSON Schema of the codec's documents, as pydantic generates it: it accepts what the codec
writes, refuses what the reader refuses, names each class once, and carries the docstrings'
words."""

from __future__ import annotations

import copy
import dataclasses
import json

import jsonschema
import pytest
from hypothesis import given, settings
from trajguard_testkit.forms import EVERYTHING, SAMPLE, Everything, Leaf

from trajguard.results import dumps, json_schema, to_data

SCHEMA = json_schema(Everything, title="everything", version=3)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["title"] == "everything"
    assert SCHEMA["properties"]["schema_version"] == {
        "const": 3,
        "description": "the version of this schema the document was written in",
    }
    assert SCHEMA["required"][0] == "schema_version"
    # Everything holds itself (children), so it has its own entry as well as being the root.
    assert sorted(SCHEMA["$defs"]) == ["Colour", "Everything", "Leaf"]


@settings(max_examples=40, deadline=None)
@given(EVERYTHING)
def test_every_document_the_codec_writes_is_valid(value):
    VALIDATOR.validate(json.loads(dumps(value, version=3)))


def test_the_forms():
    props, leaf = SCHEMA["properties"], SCHEMA["$defs"]["Leaf"]
    assert leaf["additionalProperties"] is False
    assert leaf["required"] == ["name", "weight"]
    assert leaf["properties"]["count"]["default"] == 0
    assert SCHEMA["$defs"]["Colour"]["enum"] == ["red", "dark green"]
    assert props["kind"] == {"enum": ["gating", "diagnostic"], "type": "string"}
    assert props["maybe"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert props["maybe_leaf"] == {"anyOf": [{"$ref": "#/$defs/Leaf"}, {"type": "null"}]}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert props["by_colour"]["propertyNames"] == {"$ref": "#/$defs/Colour"}
    assert props["pair"]["prefixItems"] == [{"type": "string"}, {"type": "number"}]
    assert (props["pair"]["minItems"], props["pair"]["maxItems"]) == (2, 2)
    assert props["note"]["default"] == "none"
    # No titles: pydantic's would repeat each field's name.
    assert "title" not in leaf and "title" not in leaf["properties"]["name"]


def test_descriptions_come_from_the_docstrings():
    leaf = SCHEMA["$defs"]["Leaf"]
    assert leaf["description"] == "A small record."  # up to the docstring's first section
    described = {k: v.get("description") for k, v in leaf["properties"].items()}
    assert described == {
        "name": "what it is called.",
        "weight": "how heavy it is; a description that runs over two lines.",
        "count": "How many there are (an attribute docstring).",
        "flag": None,
    }


def _document() -> dict:
    return json.loads(dumps(SAMPLE, version=3))


def _refused(document: dict) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(document)]


def test_the_schema_refuses_what_the_reader_refuses():
    VALIDATOR.validate(_document())
    cases = {
        "version": ("schema_version", 2),
        "enum": ("colour", "blue"),
        "literal": ("kind", "other"),
        "bool for int": ("whole", True),
        "fixed length": ("pair", ["p", 1.0, 2.0]),
        "duplicate in a set": ("tags", ["a", "a"]),
        "null for a number": ("number", None),
    }
    for name, (key, value) in cases.items():
        document = _document()
        document[key] = value
        assert _refused(document), name
    extra = _document()
    extra["leaf"]["colour"] = "red"
    assert _refused(extra)
    missing = _document()
    del missing["leaves"][1]["weight"]
    assert _refused(missing)
    # A field with a default may be left out, as the reader allows.
    defaulted = _document()
    del defaulted["leaves"][1]["count"], defaulted["note"]
    VALIDATOR.validate(defaulted)


def test_two_classes_of_one_name_get_one_entry_each():
    first = dataclasses.make_dataclass("Part", [("size", int)], frozen=True, kw_only=True)
    second = dataclasses.make_dataclass("Part", [("label", str)], frozen=True, kw_only=True)
    first.__module__, second.__module__ = "shop.parts", "garden.parts"
    holder = dataclasses.make_dataclass(
        "Holder", [("a", first), ("b", second), ("leaf", Leaf)], frozen=True, kw_only=True
    )
    schema = json_schema(holder, title="holder", version="1")
    assert sorted(schema["$defs"]) == ["Leaf", "garden__parts__Part", "shop__parts__Part"]
    assert schema["properties"]["a"] == {"$ref": "#/$defs/shop__parts__Part"}
    validator = jsonschema.Draft202012Validator(schema)
    value = holder(a=first(size=1), b=second(label="x"), leaf=Leaf(name="l", weight=1.0))
    document = {"schema_version": "1", **to_data(value)}
    validator.validate(document)
    swapped = copy.deepcopy(document)
    swapped["a"], swapped["b"] = document["b"], document["a"]
    assert len(list(validator.iter_errors(swapped))) >= 2


def test_only_dataclasses_without_a_version_field_are_documents():
    with pytest.raises(TypeError, match="holds a dataclass"):
        json_schema(dict[str, int], title="t", version=1)
    versioned = dataclasses.make_dataclass("V", [("schema_version", int)])
    with pytest.raises(TypeError, match="has a field 'schema_version'"):
        json_schema(versioned, title="t", version=1)
    with pytest.raises(TypeError, match="versioned document"):
        dumps(versioned(schema_version=1), version=1)
