"""Where a nightly keeps its night: ``--store`` / ``$TRAJGUARD_STORE`` first, else the suite's
``defaults.store`` (a relative directory is the suite file's), else no store."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import UsageError
from trajguard.pipeline import StoreRequest
from trajguard.pipeline._nights import store_for_suite
from trajguard.suite import load_suite

SUITE_DIR = Path("/work/project/suites")


def test_the_command_line_store_wins_over_the_suites() -> None:
    given = StoreRequest(location="/elsewhere")
    assert store_for_suite(given, named="nights", suite_dir=SUITE_DIR) is given


def test_a_relative_suite_store_is_the_suite_files_directory() -> None:
    found = store_for_suite(StoreRequest(location=None), named="nights", suite_dir=SUITE_DIR)
    assert found == StoreRequest(location=str(SUITE_DIR / "nights"))


@pytest.mark.parametrize("named", ["s3://bucket/nights", "/var/nights"])
def test_urls_and_absolute_paths_are_kept_as_written(named: str) -> None:
    found = store_for_suite(StoreRequest(location=None), named=named, suite_dir=SUITE_DIR)
    assert found is not None and found.location == named


def test_no_store_anywhere_is_no_store_unless_promotion_needs_one() -> None:
    assert store_for_suite(StoreRequest(location=None), named=None, suite_dir=SUITE_DIR) is None
    assert store_for_suite(None, named="nights", suite_dir=SUITE_DIR) is None
    wanted = StoreRequest(location=None, promote_to=Path("baselines"))
    with pytest.raises(UsageError, match=r"the suite's defaults\.store"):
        store_for_suite(wanted, named=None, suite_dir=SUITE_DIR)


def test_a_suite_names_its_store_and_keeps_its_hashes(tmp_path: Path) -> None:
    text = (
        "name: s\ndefaults: {runs: 2%s}\nscenarios:\n  - id: a\n    input: hi\n"
        "    agent: {kind: builtin, tools: ['trajguard.examples.demo_tools:calculator']}\n"
    )
    plain, stored = tmp_path / "plain.yaml", tmp_path / "stored.yaml"
    plain.write_text(text % "")
    stored.write_text(text % ", store: nights")
    with_store = load_suite(stored)
    assert with_store.defaults.store == "nights"
    assert load_suite(plain).defaults.store is None
    assert load_suite(plain).resolve("a").config_hash() == with_store.resolve("a").config_hash(), (
        "where nights are kept is not part of what a scenario is"
    )
