"""An Inspect log of a version trajguard does not read is refused, by either reader (issue 41:
`version: 99` was imported without a word)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajguard.errors import SourceLogError
from trajguard.importers import ImportOptions
from trajguard.importers._inspect import read

LOG_JSON = Path(__file__).parent / "data" / "inspect" / "qa-a.json"


@pytest.mark.parametrize("reader", ["inspect", "builtin"])
@pytest.mark.parametrize("version", [99, 0, "2", True])
def test_an_unknown_log_version_is_refused(tmp_path: Path, reader: str, version: object) -> None:
    data = json.loads(LOG_JSON.read_text())
    data["version"] = version
    log = tmp_path / "future.json"
    log.write_text(json.dumps(data))
    with pytest.raises(SourceLogError) as caught:
        read([log], ImportOptions(), reader=reader)
    if isinstance(version, int) and not isinstance(version, bool):  # "2", true: not detected
        assert caught.value.path == "$.version"
        assert caught.value.message == (
            f"Inspect log version {version!r} is not read (trajguard reads versions 1, 2)"
        )


@pytest.mark.parametrize("reader", ["inspect", "builtin"])
def test_the_versions_inspect_writes_are_read(reader: str) -> None:
    assert json.loads(LOG_JSON.read_text())["version"] == 2
    assert len(read([LOG_JSON], ImportOptions(), reader=reader).runs) == 8
