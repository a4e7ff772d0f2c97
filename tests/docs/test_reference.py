"""The generated pages (the command-line, suite and run-set reference, and the pages
``trajguard docs`` ships) are what ``docs/gen/gen_reference.py`` writes from the code now."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "docs" / "gen" / "gen_reference.py"
REGENERATE = "python docs/gen/gen_reference.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_generated_file_is_what_the_generator_writes() -> None:
    stale = [str(path.relative_to(REPO)) for path in _generator().stale_files()]
    assert not stale, (
        f"generated documentation is stale: {', '.join(stale)}; regenerate it with "
        f"`{REGENERATE}` and commit the result (edit the pages under docs/, never the copies "
        "in src/trajguard/docs/)"
    )


def test_the_shipped_names_are_the_generated_pages() -> None:
    from trajguard.cli.docs import DOCS

    generator = _generator()
    assert set(generator.SHIPPED) == set(DOCS)
    for sources in generator.SHIPPED.values():
        for page in sources:
            assert (REPO / "docs" / page).is_file(), page
    shipped = {path.stem for path in (REPO / "src" / "trajguard" / "docs").glob("*.md")}
    assert shipped == set(DOCS)


def test_the_cli_reference_names_every_command_and_option() -> None:
    import argparse

    from trajguard.cli import build_parser

    text = (REPO / "docs" / "reference" / "cli.md").read_text("utf-8")

    def walk(parser: argparse.ArgumentParser, title: str) -> int:
        assert title == "trajguard" or f"### `{title}`" in text or f"#### `{title}`" in text, title
        seen = 1
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}" in text, f"{title} {option}"
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    seen += walk(sub, f"{title} {name}")
        return seen

    assert walk(build_parser(), "trajguard") >= 15  # trajguard, its commands, baseline promote


def test_every_run_table_column_is_described() -> None:
    from trajguard.store import RUN_SCHEMA

    text = (REPO / "docs" / "reference" / "runset.md").read_text("utf-8")
    for name in RUN_SCHEMA.names:
        row = re.search(rf"^\| `{name}` \| .* \| (?P<what>[^|]+) \|$", text, re.M)
        assert row is not None, name
        assert row.group("what").strip(), name


def test_every_suite_field_is_in_the_suite_reference() -> None:
    from trajguard import suite

    text = (REPO / "docs" / "reference" / "suite.md").read_text("utf-8")
    for model in (suite.Suite, suite.Defaults, suite.Scenario, suite.Variant, suite.CommandAgent):
        for name, field in model.model_fields.items():
            if name in {"path", "source_row"}:
                continue
            assert f"| `{field.alias or name}` |" in text, f"{model.__name__}.{name}"
    for criterion in suite.CRITERION_TYPES:
        assert f"| `{criterion.model_fields['kind'].default}` |" in text


def test_shipped_pages_link_to_repository_paths_that_exist() -> None:
    for path in (REPO / "src" / "trajguard" / "docs").glob("*.md"):
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text("utf-8")):
            if re.match(r"^[a-z][a-z0-9+.-]*:|^#", target):
                continue
            assert target.startswith("docs/"), f"{path.name}: {target}"
            assert (REPO / target.partition("#")[0]).is_file(), f"{path.name}: {target}"
