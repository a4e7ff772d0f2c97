"""The codec (pydantic, one adapter per type) on synthetic dataclasses with every type form the
result types use: round trips, the exact JSON forms, and errors that name their path."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from trajguard_testkit.forms import EVERYTHING, SAMPLE, Colour, Everything, Leaf

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
    # A set is written sorted (its iteration order differs from process to process).
    assert to_data(dataclasses.replace(SAMPLE, tags=frozenset("cab")))["tags"] == ["a", "b", "c"]
    assert to_data(dataclasses.replace(SAMPLE, numbers=frozenset({10, -1, 2})))["numbers"] == [
        -1,
        2,
        10,
    ]
    assert to_data(Colour.DARK_GREEN) == "dark green"
    assert to_data({"z": 1, "a": 2}, hint=dict[str, int]) == {"z": 1, "a": 2}  # its own order
    assert to_data(SAMPLE)["span"] == [0.25, 0.75]  # a tuple is an array
    # numpy floats fit the fields they stand for and are written as Python floats.
    numpy = to_data(Leaf(name="n", weight=np.float64(0.25)))
    assert numpy == {"name": "n", "weight": 0.25, "count": 0, "flag": False}
    assert type(numpy["weight"]) is float


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
        (["whole"], True, "$.whole", "Input should be a valid integer, got bool True"),
        (["whole"], 1.5, "$.whole", "Input should be a valid integer, got float 1.5"),
        (["flag"], 1, "$.flag", "Input should be a valid boolean, got int 1"),
        (["number"], "1", "$.number", "Input should be a valid number, got str '1'"),
        (["colour"], "blue", "$.colour", "Input should be 'red' or 'dark green', got str 'blue'"),
        (["kind"], "other", "$.kind", "Input should be 'gating' or 'diagnostic', got str"),
        (["leaf", "weight"], None, "$.leaf.weight", "valid number, got NoneType None"),
        (["leaf", "extra"], 1, "$.leaf.extra", "unknown field"),
        (["pair"], ["a"], "$.pair[1]", "missing item"),
        (["items"], [1, "2"], "$.items[1]", "Input should be a valid integer, got str '2'"),
        (["mapping"], {"a b": "x"}, '$.mapping["a b"]', "Input should be a valid number"),
        (["nested"], {"k": {"x": None}}, "$.nested.k.x", "Input should be a valid number"),
        (["by_colour"], {"blue": 1}, "$.by_colour.blue", "the key: Input should be 'red' or"),
        (["tags"], ["a", "a"], "$.tags", "an item appears twice in a set"),
        (["numbers"], [1, "2"], "$.numbers[1]", "Input should be a valid integer"),
        (["maybe_leaf"], {"name": 1, "weight": 1}, "$.maybe_leaf.name", "valid string"),
        (["span"], "wide", "$.span", "Input should be a valid array, got str 'wide'"),
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
    assert error.message == "missing field"


def test_every_problem_is_listed():
    data = _with(["whole"], "7")
    data["leaf"]["name"] = 3
    error = _error(Everything, data)
    assert (error.path, error.details) == (
        "$.whole",
        ("$.leaf.name: Input should be a valid string, got int 3",),
    )


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
    with pytest.raises(ValueError, match=r"(?s)^cannot encode everything: .*field_name='leaves'"):
        to_data(dataclasses.replace(nan, leaves=[_leaf()]))
    with pytest.raises(ValueError, match=r"(?s)^cannot encode leaf: .*Expected `int`"):
        to_data(_leaf(count="3"), root="leaf")
    with pytest.raises(ValueError, match=r"(?s)cannot encode everything: .*field_name='colour'"):
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
        frame: np.ndarray

    with pytest.raises(TypeError, match=r"numpy\.ndarray'> has no JSON form \(in .*Loose"):
        to_data(Loose(frame=np.zeros(2)))


def test_the_codec_imports_neither_numpy_nor_pandas():
    """The codec's own modules import no array library (the document's module imports the
    comparison's types, and with them numpy, which a re-render needs anyway)."""
    import ast

    import trajguard.results as package

    heavy = {"numpy", "pandas", "scipy", "pyarrow"}
    folder = Path(package.__file__).parent
    codec = sorted(p for p in folder.glob("_*.py") if p.name != "_document.py")
    assert {"_codec.py", "_schema.py", "_comparison_json.py"} <= {p.name for p in codec}
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


def test_pydantic_is_imported_on_first_use_not_with_the_package():
    """``import trajguard.results`` stays cheap: the adapters are built when a document is
    first written or read."""
    code = "import sys, trajguard.results; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
