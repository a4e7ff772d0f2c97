"""Synthetic dataclasses with every type form the result codec supports, and hypothesis
strategies that build them (for tests/results)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Literal

from hypothesis import strategies as st


class Colour(StrEnum):
    """A string enum."""

    RED = "red"
    DARK_GREEN = "dark green"


class Level(Enum):
    """An enum with integer values."""

    LOW = 1
    HIGH = 2


@dataclass(frozen=True, kw_only=True)
class Leaf:
    """A small record.

    Attributes:
        name: what it is called.
        weight: how heavy it is; a description that runs
            over two lines.
    """

    name: str
    weight: float
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
    level: Level
    kind: Literal["gating", "diagnostic"]
    mixed: Literal["one", 2, True]
    maybe: float | None
    either: int | str
    numeric: float | int
    leaf: Leaf
    maybe_leaf: Leaf | None
    leaves: tuple[Leaf, ...]
    pair: tuple[str, float]
    span: tuple[float, float] | None
    items: list[int]
    sequence: Sequence[str]
    mapping: Mapping[str, float]
    nested: Mapping[str, Mapping[str, float]]
    by_colour: Mapping[Colour, int]
    by_pair: Mapping[tuple[str, str], Leaf]
    by_level: dict[Level, str]
    tags: frozenset[str]
    numbers: frozenset[int]
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
        level=st.sampled_from(Level),
        kind=st.sampled_from(["gating", "diagnostic"]),
        mixed=st.sampled_from(["one", 2, True]),
        maybe=st.none() | FINITE,
        either=st.integers() | TEXT,
        numeric=st.integers() | FINITE,
        leaf=LEAVES,
        maybe_leaf=st.none() | LEAVES,
        leaves=st.lists(LEAVES, max_size=3).map(tuple),
        pair=st.tuples(TEXT, FINITE),
        span=st.none() | st.tuples(FINITE, FINITE),
        items=st.lists(st.integers(), max_size=4),
        sequence=st.lists(TEXT, max_size=3).map(tuple),
        mapping=st.dictionaries(TEXT, FINITE, max_size=3),
        nested=st.dictionaries(TEXT, st.dictionaries(TEXT, FINITE, max_size=2), max_size=2),
        by_colour=st.dictionaries(st.sampled_from(Colour), st.integers(), max_size=2),
        by_pair=st.dictionaries(st.tuples(TEXT, TEXT), LEAVES, max_size=2),
        by_level=st.dictionaries(st.sampled_from(Level), TEXT, max_size=2),
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
    level=Level.HIGH,
    kind="gating",
    mixed=2,
    maybe=None,
    either="x",
    numeric=3,
    leaf=LEAF,
    maybe_leaf=None,
    leaves=(LEAF, Leaf(name="b", weight=1e-300, count=2)),
    pair=("p", 1.0),
    span=(0.25, 0.75),
    items=[1, 2],
    sequence=("s",),
    mapping={"k": 1.5},
    nested={"k": {"j": 2.5}},
    by_colour={Colour.DARK_GREEN: 1},
    by_pair={("a", "b"): LEAF},
    by_level={Level.LOW: "low"},
    tags=frozenset({"b", "a"}),
    numbers=frozenset({10, 2}),
    named=(("n", 0.5),),
    children=(),
)
