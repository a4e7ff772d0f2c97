"""The committed sample reports are what the code renders now (``python reports/regenerate.py``
makes them again from the committed run sets)."""

from __future__ import annotations

import base64
import gzip
import importlib.util
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.close_numbers import assert_same_output, perturbed

REPO = Path(__file__).resolve().parents[2]
_BLOB = re.compile(r'(<script type="application/octet-stream" id="[^"]+">)([A-Za-z0-9+/=]*)<')
_IMAGE = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


def _regenerate(out: Path) -> None:
    spec = importlib.util.spec_from_file_location("regenerate", REPO / "reports" / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.regenerate(out)


def _page(text: str) -> str:
    """The page with its data decoded (gzip's bytes may differ between zlib builds) and its PNGs
    left out (matplotlib's pixels between its versions; the PNG files are checked by name)."""
    decoded = _BLOB.sub(
        lambda m: m.group(1) + gzip.decompress(base64.b64decode(m.group(2))).decode() + "<", text
    )
    return _IMAGE.sub("data:image/png;base64,…", decoded)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("samples")
    (root / "benchmarks").symlink_to(REPO / "benchmarks")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)  # the samples name every path relative to the repository's root
        _regenerate(Path("reports"))
    return root / "reports"


@pytest.mark.parametrize("sample", ["sample-nightly", "sample-ab"])
def test_the_committed_sample_is_what_the_code_renders_now(fresh: Path, sample: str) -> None:
    committed, now = REPO / "reports" / sample, fresh / sample
    hint = "the code renders it differently now: run python reports/regenerate.py, review, commit"
    for name in (
        "comparison.json",
        "ab.md" if sample == "sample-ab" else "report.md",
        "pr-comment.md",
    ):
        assert_same_output(
            (committed / name).read_text(), (now / name).read_text(), what=name, hint=hint
        )
    page = _page((committed / "report.html").read_text())
    assert_same_output(
        page, _page((now / "report.html").read_text()), what="report.html", hint=hint
    )
    assert sorted(p.name for p in (committed / "plots").iterdir()) == sorted(
        p.name for p in (now / "plots").iterdir()
    )
    if sample == "sample-ab":
        ours, theirs = (
            pq.read_table(committed / "runs" / "runs.parquet"),
            pq.read_table(now / "runs" / "runs.parquet"),
        )
        assert ours.equals(theirs)


@pytest.mark.parametrize("sample", ["sample-nightly", "sample-ab"])
def test_another_cpus_rounding_of_the_samples_numbers_is_the_same_sample(sample: str) -> None:
    """The floats of comparison.json and of the page, moved in their last bits as another CPU
    rounds them, still match; a change in the sixth digit does not."""
    for name in ("comparison.json", "report.html"):
        committed = (REPO / "reports" / sample / name).read_text()
        moved = perturbed(committed)
        assert moved != committed  # there were numbers with fractions to move
        assert_same_output(committed, moved, what=name)
        first = re.search(r"\d\.\d{6,}", committed)
        assert first is not None
        changed = committed.replace(first.group(), repr(float(first.group()) * (1 + 1e-6)), 1)
        with pytest.raises(AssertionError, match=f"{name} differs"):
            assert_same_output(committed, changed, what=name)


@pytest.mark.parametrize("sample", ["sample-nightly", "sample-ab"])
def test_no_sample_names_a_path_of_the_machine_that_wrote_it(sample: str) -> None:
    for path in (REPO / "reports" / sample).iterdir():
        if path.suffix in (".md", ".json", ".html"):
            text = _page(path.read_text())
            assert not re.search(r"(/work/|/tmp/|/home/|/root/|[A-Z]:\\\\)", text), path.name
