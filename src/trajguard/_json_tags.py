"""A union of result types in a JSON document, told apart by a tag (a ``name`` property).

A result field that holds one of several record types (the design a comparison ran under)
declares it ``Annotated[A | B | C, TaggedBy("name")]``: each type has a ``Literal`` ``name``
field, pydantic reads the tag and validates the one type it names (an error's path then names
the tag: ``$.design.sequential.outcome``), and the JSON Schema says ``oneOf`` with a
discriminator, each member requiring its tag as the reader does. pydantic is imported only when
it builds the field's schema, not here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TaggedBy"]


class TaggedBy:
    """``Annotated`` metadata of a union field: the property whose value names the member."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"TaggedBy({self.key!r})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic import Discriminator

        return Discriminator(self.key).__get_pydantic_core_schema__(source, handler)

    def __get_pydantic_json_schema__(self, schema: Any, handler: Any) -> Any:
        """The union's schema, each member requiring the tag: a member's tag has a default in
        Python, but the reader finds the member by it, so a document without it is refused."""
        json_schema = handler(schema)
        for member in json_schema.get("oneOf", ()):
            properties = handler.resolve_ref_schema(member)
            if self.key not in properties.get("required", ()):
                properties["required"] = [self.key, *properties.get("required", ())]
        return json_schema
