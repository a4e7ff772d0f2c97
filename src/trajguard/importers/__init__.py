"""Other tools' eval logs as run sets: Inspect AI, promptfoo and Harbor.

An importer reads a source's log into :class:`ImportedRun` records (one per sample and epoch,
test case and repeat, or trial) and :func:`import_logs` writes them as an ordinary run set, which
``show``, ``runs``, ``compare``, ``baseline promote``, the HTML report and the store of nights
read unchanged. What a source does not record is missing in the rows and listed in the
manifest's ``imported.lacks`` (the report says so), never invented. The mapping of each source,
field by field: ``docs/reference/import-<source>.md``.
"""

from trajguard.importers._api import ImportResult, import_logs, read_logs
from trajguard.importers._headline import Headline, headlines
from trajguard.importers._model import ImportedBatch, ImportedCriterion, ImportedRun, ImportOptions
from trajguard.importers._pass_rule import PassRule, parse_pass_rule
from trajguard.importers._registry import SOURCES, detect_source
from trajguard.importers._write import IMPORTED_KEY, write_batch

__all__ = [
    "IMPORTED_KEY",
    "SOURCES",
    "Headline",
    "ImportOptions",
    "ImportResult",
    "ImportedBatch",
    "ImportedCriterion",
    "ImportedRun",
    "PassRule",
    "detect_source",
    "headlines",
    "import_logs",
    "parse_pass_rule",
    "read_logs",
    "write_batch",
]
