"""A real Chromium for the HTML report's tests (Debian's ``chromium`` driven by Playwright):
skipped when it is missing here, a failure under ``TRAJGUARD_REQUIRE_FRAMEWORKS=1`` (CI)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _missing(why: str) -> None:
    if os.environ.get("TRAJGUARD_REQUIRE_FRAMEWORKS") == "1":
        pytest.fail(f"{why} (required here: TRAJGUARD_REQUIRE_FRAMEWORKS=1)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed: pip install -e '.[dev]'")
    if not Path(CHROMIUM).exists():
        _missing("chromium is not installed: apt-get install -y chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()
