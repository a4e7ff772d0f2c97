"""The document's record of the design a comparison ran under: one type per design, told apart
by its ``name``. Each design's module holds its record type; this union is the one list of them
(comparison.json's ``design``; the report finds a design's section by the record's type)."""

from __future__ import annotations

from typing import Annotated

from trajguard._json_tags import TaggedBy
from trajguard.comparison._budget import BudgetRecord
from trajguard.comparison._designs import FixedRecord
from trajguard.comparison._escalation import EscalationRecord
from trajguard.comparison._sequential import SequentialRecord

__all__ = ["DesignRecord"]

DesignRecord = Annotated[
    FixedRecord | SequentialRecord | EscalationRecord | BudgetRecord, TaggedBy("name")
]
"""What the document keeps of its design: a :class:`FixedRecord`, :class:`SequentialRecord`,
:class:`EscalationRecord` or :class:`BudgetRecord`, tagged by ``name``."""
