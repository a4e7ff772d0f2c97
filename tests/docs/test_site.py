"""The documentation site builds with ``mkdocs build --strict`` (a broken link, anchor or nav
entry fails it), every page of its nav is built, and ``trajguard docs NAME`` prints each page
the package ships."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from trajguard.cli.docs import DOCS

REPO = Path(__file__).resolve().parents[2]


def _nav_pages(entries: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            pages += _nav_pages(value)
        else:
            assert isinstance(value, str)
            pages.append(value)
    return pages


def test_the_site_builds_strict_with_every_nav_page(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not re.search(r"^WARNING\s+-", result.stderr, re.M), result.stderr

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))
    pages = _nav_pages(config["nav"])
    built = []
    for page in pages:
        stem = page.removesuffix(".md")
        html = site / ("index.html" if stem == "index" else f"{stem}/index.html")
        assert html.is_file(), f"{page} was not built"
        built.append(page)
    print(f"mkdocs build --strict built {len(built)} nav pages")
    assert len(built) == len(set(pages)) >= 25
    on_disk = {
        str(p.relative_to(REPO / "docs"))
        for p in (REPO / "docs").rglob("*.md")
        if "gen" not in p.parts
    }
    assert on_disk == set(pages), "every page under docs/ is in the nav, and only those"
    api = (site / "reference" / "python-api" / "index.html").read_text("utf-8")
    assert "load_suite" in api and "compare_runsets" in api  # mkdocstrings rendered the packages


@pytest.mark.parametrize("name", sorted(DOCS))
def test_trajguard_docs_prints_each_shipped_page(name: str, cli, tmp_path: Path) -> None:
    result = cli("docs", name, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shipped = (REPO / "src" / "trajguard" / "docs" / f"{name}.md").read_text("utf-8")
    assert result.stdout == shipped + "\n"
    assert result.stdout.startswith("# ")


def test_trajguard_docs_lists_every_page(cli, tmp_path: Path) -> None:
    result = cli("docs", cwd=tmp_path)
    assert result.returncode == 0
    listed = [line.split()[2] for line in result.stdout.splitlines()]
    assert listed == list(DOCS)
