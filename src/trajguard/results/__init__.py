"""Result objects as data: JSON in and out, and the JSON Schema of what is written.

Generic over keyword-only frozen dataclasses: :func:`to_data` / :func:`from_data` follow the
fields' type hints (dataclasses, enums, ``Literal``, scalars, unions, tuples, lists,
mappings, frozensets), :func:`dumps` / :func:`loads` add JSON text and a ``schema_version``,
and :func:`json_schema` describes the same documents (draft 2020-12). Nothing here does I/O or
imports numpy or pandas.
"""

from trajguard.errors import InvalidResultData
from trajguard.results._codec import VERSION_KEY, dumps, from_data, loads, to_data
from trajguard.results._schema import json_schema

__all__ = [
    "VERSION_KEY",
    "InvalidResultData",
    "dumps",
    "from_data",
    "json_schema",
    "loads",
    "to_data",
]
