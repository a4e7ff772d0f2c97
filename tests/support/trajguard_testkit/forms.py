"""Synthetic dataclasses with every type form the result types use, and hypothesis
strategies that build them (for tests/results)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Literal

from hypothesis import strategies as st

from trajguard._json_sets import JsonSet, SortedNames


class Colour(StrEnum):
    """A string enum."""

    RED = "red"
    DARK_GREEN = "dark green"


@dataclass(frozen=True, kw_only=True)
class Leaf:
    """A small record.

    Args:
        name, weight, count, flag: a section the description leaves out.
    """

    name: str
    """what it is called."""
    weight: float
    """how heavy it is; a description that runs
    over two lines."""
    count: int = 0
    """How many there are (an attribute docstring)."""
    flag: bool = False


@dataclass(frozen=True, kw_only=True)
class Everything:
    """Every form at once."""

    text: str
    number: float
    whole: int
    flag: bool
    nothing: None
    colour: Colour
    kind: Literal["gating", "diagnostic"]
    maybe: float | None
    either: int | str
    numeric: float | int
    leaf: Leaf
    maybe_leaf: Leaf | None
    leaves: tuple[Leaf, ...]
    pair: tuple[str, float]
    span: tuple[float, float] | None
    items: list[int]
    mapping: Mapping[str, float]
    nested: Mapping[str, Mapping[str, float]]
    by_colour: Mapping[Colour, int]
    tags: SortedNames
    numbers: Annotated[frozenset[int], JsonSet()]
    named: tuple[tuple[str, float], ...]
    children: tuple[Everything, ...] = ()
    note: str = "none"
    table: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


FINITE = st.floats(allow_nan=False, allow_infinity=False)
TEXT = st.text(max_size=8)

LEAVES = st.builds(Leaf, name=TEXT, weight=FINITE, count=st.integers(), flag=st.booleans())


def everything(
    children: st.SearchStrategy[tuple[Everything, ...]],
) -> st.SearchStrategy[Everything]:
    return st.builds(
        Everything,
        text=TEXT,
        number=FINITE,
        whole=st.integers(),
        flag=st.booleans(),
        nothing=st.none(),
        colour=st.sampled_from(Colour),
        kind=st.sampled_from(["gating", "diagnostic"]),
        maybe=st.none() | FINITE,
        either=st.integers() | TEXT,
        numeric=st.integers() | FINITE,
        leaf=LEAVES,
        maybe_leaf=st.none() | LEAVES,
        leaves=st.lists(LEAVES, max_size=3).map(tuple),
        pair=st.tuples(TEXT, FINITE),
        span=st.none() | st.tuples(FINITE, FINITE),
        items=st.lists(st.integers(), max_size=4),
        mapping=st.dictionaries(TEXT, FINITE, max_size=3),
        nested=st.dictionaries(TEXT, st.dictionaries(TEXT, FINITE, max_size=2), max_size=2),
        by_colour=st.dictionaries(st.sampled_from(Colour), st.integers(), max_size=2),
        tags=st.frozensets(TEXT, max_size=4),
        numbers=st.frozensets(st.integers(), max_size=4),
        named=st.lists(st.tuples(TEXT, FINITE), max_size=3).map(tuple),
        children=children,
        note=TEXT,
        table=st.dictionaries(TEXT, st.lists(TEXT, max_size=2).map(tuple), max_size=2),
    )


EVERYTHING = everything(st.lists(everything(st.just(())), max_size=2).map(tuple))

LEAF = Leaf(name="a", weight=0.5)
SAMPLE = Everything(
    text="text",
    number=-0.1,
    whole=7,
    flag=True,
    nothing=None,
    colour=Colour.RED,
    kind="gating",
    maybe=None,
    either="x",
    numeric=3,
    leaf=LEAF,
    maybe_leaf=None,
    leaves=(LEAF, Leaf(name="b", weight=1e-300, count=2)),
    pair=("p", 1.0),
    span=(0.25, 0.75),
    items=[1, 2],
    mapping={"k": 1.5},
    nested={"k": {"j": 2.5}},
    by_colour={Colour.DARK_GREEN: 1},
    tags=frozenset({"b", "a"}),
    numbers=frozenset({10, 2}),
    named=(("n", 0.5),),
    children=(),
)
