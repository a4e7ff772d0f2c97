"""Open an HTML report in a real browser and keep what it logged and asked for."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Opened:
    """A report opened in the browser, with what it logged and asked for."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


def open_report(
    browser: Any, page_file: Path, *, width: int = 1280, script: bool = True, fragment: str = ""
) -> Opened:
    """Open ``page_file`` from disk (at ``fragment``, a ``#…`` link into it); every request but
    the page itself is refused and kept."""
    context = browser.new_context(
        viewport={"width": width, "height": 900}, java_script_enabled=script
    )
    page = context.new_page()
    opened = Opened(page=page)
    url = page_file.resolve().as_uri()
    page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: opened.errors.append(str(e)))

    def route(request_route: Any) -> None:
        if request_route.request.url == url:
            request_route.continue_()
        else:
            opened.requests.append(request_route.request.url)
            request_route.abort()

    page.route("**/*", route)
    page.on("request", lambda r: None if r.url == url else opened.requests.append(r.url))
    page.goto(url + fragment)
    if script:
        page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    return opened


def page_rows(page_file: Path) -> dict[str, Any]:
    """The run explorer's rows embedded in a report page (decoded as the page decodes them)."""
    import base64
    import gzip
    import json
    import re

    found = re.search(r'id="run-rows">([A-Za-z0-9+/=]+)<', page_file.read_text())
    assert found is not None, f"{page_file} holds no runs"
    data: dict[str, Any] = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    return data
