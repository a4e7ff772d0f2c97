"""The codec on synthetic dataclasses with every type form: round trips, the exact JSON forms,
and errors that name their path."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from trajguard_testkit.forms import EVERYTHING, SAMPLE, Colour, Everything, Leaf, Level

from trajguard.errors import TrajguardError
from trajguard.results import InvalidResultData, dumps, from_data, loads, to_data

EXAMPLES = settings(max_examples=60, deadline=None)


@EXAMPLES
@given(EVERYTHING)
def test_every_form_round_trips(value):
    data = to_data(value)
    assert from_data(Everything, data) == value
    text = dumps(value)
    assert text == dumps(value)
    assert loads(Everything, text) == value
    # JSON text, not just data: reading and writing again gives the same bytes.
    assert dumps(loads(Everything, text)) == text


@EXAMPLES
@given(EVERYTHING)
def test_floats_survive_the_text_bit_for_bit(value):
    again = loads(Everything, dumps(value))
    assert math.copysign(1, again.number) == math.copysign(1, value.number)
    assert again.number.hex() == float(value.number).hex()


def _leaf(**changes: Any) -> Leaf:
    return dataclasses.replace(Leaf(name="a", weight=0.5), **changes)


def test_the_json_forms():
    assert to_data(_leaf(count=3)) == {"name": "a", "weight": 0.5, "count": 3, "flag": False}
    # Field order is the class's, whatever the keyword order of the constructor.
    assert list(to_data(Leaf(flag=True, count=1, weight=2, name="b"))) == [
        "name",
        "weight",
        "count",
        "flag",
    ]
    assert to_data(Leaf(name="b", weight=2)) == {
        "name": "b",
        "weight": 2.0,
        "count": 0,
        "flag": False,
    }
    assert type(to_data(Leaf(name="b", weight=2))["weight"]) is float
    assert to_data(frozenset({"b", "c", "a"}), hint=frozenset[str]) == ["a", "b", "c"]
    assert to_data(frozenset({10, -1, 2}), hint=frozenset[int]) == [-1, 2, 10]
    assert to_data(Colour.DARK_GREEN) == "dark green"
    assert to_data({Level.HIGH: "x"}, hint=dict[Level, str]) == [[2, "x"]]
    assert to_data({("a", "b"): 1.5}, hint=dict[tuple[str, str], float]) == [[["a", "b"], 1.5]]
    assert to_data({"z": 1, "a": 2}, hint=dict[str, int]) == {"z": 1, "a": 2}  # its own order
    # numpy scalars fit the fields they stand for and are written as Python values.
    numpy = to_data(Leaf(name="n", weight=np.float64(0.25), count=np.int64(4), flag=np.bool_(True)))
    assert numpy == {"name": "n", "weight": 0.25, "count": 4, "flag": True}
    assert [type(v) for v in numpy.values()] == [str, float, int, bool]


def test_fields_with_defaults_may_be_left_out():
    assert from_data(Leaf, {"name": "a", "weight": 1}) == Leaf(name="a", weight=1.0)
    value = from_data(Leaf, {"name": "a", "weight": 1})
    assert type(value.weight) is float  # a JSON integer read into a float field


def test_int_and_float_members_of_a_union_keep_their_type():
    @dataclass(frozen=True, kw_only=True)
    class Numbers:
        value: float | int

    for number in (3, 3.0, -0.0):
        again = from_data(Numbers, to_data(Numbers(value=number)))
        assert type(again.value) is type(number) and again.value == number


def _error(tp: Any, data: Any) -> InvalidResultData:
    with pytest.raises(InvalidResultData) as caught:
        from_data(tp, data)
    assert isinstance(caught.value, TrajguardError) and caught.value.exit_code == 2
    return caught.value


GOOD = to_data(SAMPLE)


def _with(path: list[Any], value: Any, *, delete: bool = False) -> dict:
    data = json.loads(json.dumps(GOOD))
    node = data
    for part in path[:-1]:
        node = node[part]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "where", "message"),
    [
        (["whole"], True, "$.whole", "expected an integer, got bool True"),
        (["whole"], 1.5, "$.whole", "expected an integer, got float 1.5"),
        (["flag"], 1, "$.flag", "expected true or false, got int 1"),
        (["number"], "1", "$.number", "expected a number, got str '1'"),
        (
            ["colour"],
            "blue",
            "$.colour",
            "unknown Colour value 'blue' (known: 'red', 'dark green')",
        ),
        (["level"], True, "$.level", "unknown Level value True"),
        (["kind"], "other", "$.kind", "unknown value 'other' (known: 'gating', 'diagnostic')"),
        (["mixed"], 1, "$.mixed", "unknown value 1"),
        (["leaf", "weight"], None, "$.leaf.weight", "expected a number, got NoneType None"),
        (["leaf", "extra"], 1, "$.leaf.extra", "unknown field of Leaf (its fields: name,"),
        (["pair"], ["a"], "$.pair", "expected an array of 2 items"),
        (["items"], [1, "2"], "$.items[1]", "expected an integer, got str '2'"),
        (["mapping"], {"a b": "x"}, '$.mapping["a b"]', "expected a number"),
        (["nested"], {"k": {"x": None}}, "$.nested.k.x", "expected a number"),
        (["by_colour"], {"blue": 1}, "$.by_colour.blue", "unknown Colour value 'blue'"),
        (["by_pair"], [[["a"], GOOD["leaf"]]], "$.by_pair[0][0]", "expected an array of 2 items"),
        (["by_level"], [[1, "a"], [1, "b"]], "$.by_level", "a key appears twice"),
        (["tags"], ["a", "a"], "$.tags", "an item appears twice in a set"),
        (["maybe_leaf"], {"name": 1, "weight": 1}, "$.maybe_leaf.name", "expected a string"),
        (["span"], "wide", "$.span", "expected an array of 2 items or null, got str 'wide'"),
    ],
)
def test_errors_name_the_json_path(path, value, where, message):
    error = _error(Everything, _with(path, value))
    assert error.path == where
    assert message in error.message
    assert str(error).startswith(f"{where}: ")
    assert "hint:" in str(error)


def test_a_missing_field_is_named_where_it_belongs():
    error = _error(Everything, _with(["leaf", "weight"], None, delete=True))
    assert error.path == "$.leaf.weight"
    assert error.message == "missing field 'weight' of Leaf"


def test_the_constructors_checks_apply_to_what_is_read():
    from trajguard.comparison import CompareConfig

    data = to_data(CompareConfig())
    data["alpha"] = 1.5
    error = _error(CompareConfig, data)
    assert error.path == "$"
    assert "alpha must be in (0, 1), got 1.5" in error.message


def test_encoding_refuses_what_does_not_fit_its_field():
    nan = dataclasses.replace(SAMPLE, leaves=(_leaf(), _leaf(weight=math.inf)), children=())
    with pytest.raises(ValueError, match=r"^cannot encode everything\.leaves\[1\]\.weight: inf is"):
        to_data(nan)
    with pytest.raises(ValueError, match=r"everything\.leaves: expected an array, got list"):
        to_data(dataclasses.replace(nan, leaves=[_leaf()]))
    with pytest.raises(ValueError, match=r"leaf\.count: expected an integer, got bool True"):
        to_data(_leaf(count=True), root="leaf")
    with pytest.raises(ValueError, match=r"everything\.colour: expected Colour, got str 'red'"):
        to_data(dataclasses.replace(nan, colour="red", leaves=()))


def test_text_that_is_not_strict_json_is_refused():
    text = dumps(_leaf())
    with pytest.raises(InvalidResultData, match="NaN is not a JSON number"):
        loads(Leaf, text.replace("0.5", "NaN"))
    with pytest.raises(InvalidResultData, match="the key 'name' appears twice"):
        loads(Leaf, '{"name": "a", "name": "b", "weight": 1}')


def test_types_without_a_json_form_are_named():
    @dataclass(frozen=True, kw_only=True)
    class Loose:
        anything: Any

    with pytest.raises(TypeError, match=r"typing\.Any has no JSON form"):
        to_data(Loose(anything=1))
    with pytest.raises(TypeError, match="has no JSON form"):
        from_data(dict, {})


def test_the_codec_imports_neither_numpy_nor_pandas():
    """The codec's own modules import no array library (the document's module imports the
    comparison's types, and with them numpy, which a re-render needs anyway)."""
    import ast

    import trajguard.results as package

    heavy = {"numpy", "pandas", "scipy", "pyarrow"}
    folder = Path(package.__file__).parent
    codec = sorted(p for p in folder.glob("_*.py") if p.name != "_document.py")
    assert len(codec) >= 5
    for module in codec:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        }
        assert not imported & heavy, module.name
