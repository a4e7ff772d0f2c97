"""Text is text and files are what they claim (issue 28): control characters from a model, a
tool or a run set are escaped wherever trajguard shows or writes them; JSON from disk is read
from regular files only, bounded in size and depth; a run set's rows carry its own batch id."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard._json import FileKindError, JSONLimitError, loads_bounded, read_json
from trajguard._text import has_control, json_safe, printable, safe_str
from trajguard._user_code import is_signal_interrupt
from trajguard.capture import Message
from trajguard.errors import StoreError
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

HOSTILE = "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ \x1b[31mred\x07 \x9b2J \u202etxet"


def test_every_control_character_is_escaped_visibly() -> None:
    shown = printable(HOSTILE)
    assert shown == (
        "\\x1b]8;;http://evil.example\\x1b\\click\\x1b]8;;\\x1b\\ \\x1b[31mred\\x07 "
        "\\x9b2J \\u202etxet"
    )
    assert not has_control(shown)
    assert printable("a\nb\tc\r\x00") == "a\\x0ab\\x09c\\x0d\\x00"
    assert printable("a\nb\tc", keep="\n") == "a\nb\\x09c"
    assert printable("\ud800 lone surrogate") == "\\ud800 lone surrogate"
    with pytest.raises(ValueError, match="only newline and tab"):
        printable("x", keep="\r")


def test_json_escapes_keep_the_document_the_same() -> None:
    document = {"name": HOSTILE, "lone": "\ud800"}
    text = json.dumps(document, ensure_ascii=False, indent=1)
    safe = json_safe(text)
    assert not has_control(safe, keep="\n")
    assert json.loads(safe) == document


def test_an_object_whose_str_raises_still_has_a_text() -> None:
    class Broken:
        def __str__(self) -> str:
            raise RuntimeError("no")

    assert safe_str(Broken()).endswith("(its str() raised RuntimeError)")
    assert printable(Broken()).endswith("(its str() raised RuntimeError)")


def test_only_ctrl_c_is_taken_for_ctrl_c() -> None:
    def _on_sigint() -> None:  # the name of asyncio's (and the batch loop's) SIGINT handler
        raise KeyboardInterrupt

    def user_code() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as from_the_signal:
        _on_sigint()
    with pytest.raises(KeyboardInterrupt) as from_the_code:
        user_code()
    assert is_signal_interrupt(from_the_signal.value)
    assert not is_signal_interrupt(from_the_code.value)
    assert not is_signal_interrupt(SystemExit(1))


def _tool_with_an_invented_name(messages: Sequence[Message], _: dict[str, Any]) -> str:
    if not any(m["role"] == "assistant" for m in messages):
        return json.dumps({"tool": "\x1b]0;invented\x07calc", "arguments": {}})
    return json.dumps({"tool": "final_answer", "answer": "\x1b[2J391"})


async def test_a_model_invented_tool_name_reaches_show_and_the_report_escaped(
    tmp_path: Path, cli: Any
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: text\ndefaults: {runs: 3, timeout_s: 30}\nscenarios:\n  - id: a\n    input: hi\n"
        "    agent: {kind: builtin, mode: json, tools: "
        "['trajguard.examples.demo_tools:calculator']}\n    pass: [{tool_called: calculator}]\n"
    )
    model = Scripted(_tool_with_an_invented_name)
    for side in ("base", "cand"):
        options = BatchOptions(seed=3)
        await run_batch(load_suite(suite), tmp_path / side, options, make_model=lambda _: model)
    assert "\x1b]0;invented\x07calc" in set(store.read_runs(tmp_path / "base")["tool_sequence"][0])
    shown = cli("show", "base", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "\\x1b]0;invented\\x07calc" in shown.stdout
    assert not has_control(shown.stdout + shown.stderr, keep="\n")
    compared = cli(
        "compare",
        "base",
        "cand",
        "--no-plots",
        "--report",
        "r.md",
        "--junit",
        "j.xml",
        cwd=tmp_path,
    )
    assert compared.returncode == 0, compared.stderr
    for name in ("r.md", "j.xml", "comparison.json"):
        assert not has_control((tmp_path / name).read_text(), keep="\n"), name
    ET.parse(tmp_path / "j.xml")
    json.loads((tmp_path / "comparison.json").read_text())


def test_json_from_disk_is_bounded_and_regular(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 300 + "]" * 300)
    with pytest.raises(JSONLimitError, match="nested more than 256 levels deep"):
        read_json(deep)
    deeper = tmp_path / "deeper.json"
    deeper.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(JSONLimitError):
        read_json(deeper)
    assert loads_bounded("[" * 256 + "]" * 256) is not None
    big = tmp_path / "big.json"
    big.write_text('"' + "x" * 2000 + '"')
    with pytest.raises(FileKindError, match="more than the 1,000 trajguard reads"):
        read_json(big, max_bytes=1000)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(FileKindError, match="is a FIFO"):
        read_json(fifo)  # refused before it is opened: opening would block
    with pytest.raises(FileKindError, match="is a character device"):
        read_json(Path("/dev/zero"))
    with pytest.raises(FileKindError, match="is a directory"):
        read_json(tmp_path)


def test_a_run_set_refuses_rows_of_another_batch(tmp_path: Path) -> None:
    rows = [
        {
            "run_id": f"s/base/{i}",
            "batch_id": "theirs",
            "suite": "demo",
            "scenario": "s",
            "variant": "base",
            "run_index": i,
            "model": "m",
            "status": "ok",
        }
        for i in range(2)
    ]
    target = tmp_path / "rs"
    store.write_manifest(target, {"suite": "demo", "batch_id": "mine", "status": "finished"})
    store.write_runs(target / store.RUNS_FILE, rows)
    with pytest.raises(StoreError, match=r"another batch \('theirs'\).*\('mine'\)"):
        store.read_table(target)
    store.write_manifest(target, {"suite": "demo", "batch_id": "theirs", "status": "finished"})
    assert store.read_table(target).num_rows == 2
