"""``comparison.json``: a report document as versioned JSON, its schema, and reading it back.

The file is what :func:`document_json` writes: ``schema_version`` first, then the
:class:`~trajguard.results.ReportDocument`'s fields. Its JSON Schema ships in the package as
``comparison.schema.json`` (:func:`document_schema` makes it; a test keeps the two equal).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trajguard.errors import InvalidResultData
from trajguard.results._codec import dumps, from_data, parse
from trajguard.results._document import DOCUMENT_SCHEMA_VERSION, ReportDocument
from trajguard.results._sanity import impossible_values
from trajguard.results._schema import json_schema

__all__ = ["COMPARISON_FILE", "SCHEMA_FILE", "document_json", "document_schema", "read_document"]

COMPARISON_FILE = "comparison.json"
"""The file name a comparison's document is written under, beside its report."""
SCHEMA_FILE = Path(__file__).with_name("comparison.schema.json")
"""The JSON Schema of ``comparison.json``, shipped in the package."""


def document_json(document: ReportDocument) -> str:
    """The document as the text of ``comparison.json``."""
    return dumps(document, version=DOCUMENT_SCHEMA_VERSION, indent=None)


def read_document(text: str | bytes, *, file: str | Path | None = None) -> ReportDocument:
    """The document in the text of a ``comparison.json``.

    A version 2 file (written before the design record was tagged) reads as the same document.

    Raises:
        InvalidResultData: not JSON, another schema version, not a report document, or one
            holding impossible values (a rate or p-value outside [0, 1], a negative or absurd
            count); the message names the JSON path.
    """
    data = parse(text, version=DOCUMENT_SCHEMA_VERSION, file=file, upgrades={2: _design_of_v2})
    document: ReportDocument = from_data(ReportDocument, data, file=file)
    wrong = impossible_values(data)
    if wrong:
        raise InvalidResultData(
            f"{len(wrong)} impossible value(s): {wrong[0]}",
            file=file,
            details=wrong[1:20],
            hint="the file was edited or written by something else than trajguard; render the "
            "report again from the run sets (trajguard compare BASELINE CANDIDATE)",
        )
    return document


def _design_of_v2(data: dict[str, Any]) -> dict[str, Any]:
    """A version 2 document as version 3: its design record held one optional field per design
    (``sequential``, ``escalation`` with ``stops``, ``budget``); it is now the one record its
    ``name`` tags, which holds only its own fields (``outcome``; ``plan`` and ``stops``)."""
    design = data.get("design")
    if not isinstance(design, dict):
        return data  # no record, or not an object: the type check says so
    name = design.get("name", "fixed")
    fields_of = {
        "sequential": {"outcome": design.get("sequential")},
        "escalation": {"plan": design.get("escalation"), "stops": design.get("stops", [])},
        "budget": {"outcome": design.get("budget")},
    }
    own = fields_of.get(name, {}) if isinstance(name, str) else {}  # a bad name: the type check
    return {**data, "design": {"name": name, "unit": design.get("unit", "runs"), **own}}


def document_schema() -> dict[str, Any]:
    """The JSON Schema of ``comparison.json`` (draft 2020-12)."""
    return json_schema(
        ReportDocument,
        title="trajguard comparison.json: a comparison and everything its report says",
        version=DOCUMENT_SCHEMA_VERSION,
    )
