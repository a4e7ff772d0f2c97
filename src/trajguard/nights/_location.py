"""Where a store of nights lives: a local directory, ``s3://bucket/prefix``, or any URI pyarrow's
file systems open (``gs://``, ``hdfs://``, ``file://``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pafs

from trajguard.errors import StoreError

__all__ = ["StoreLocation", "is_url", "open_location"]


@dataclass(frozen=True, kw_only=True)
class StoreLocation:
    """An opened store location.

    Attributes:
        text: the location as the user gave it (shown in messages and reports).
        filesystem: the pyarrow file system it is on.
        root: the store's root path inside that file system.
        local: a local directory (renames are atomic there).
    """

    text: str
    filesystem: pafs.FileSystem
    root: str
    local: bool


def _s3(url: str) -> StoreLocation:
    parsed = urlparse(url)
    if not parsed.netloc:
        raise StoreError(
            "the S3 store URL names no bucket",
            file=url,
            hint="pass s3://BUCKET/PREFIX (credentials from AWS_* variables or ~/.aws)",
        )
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    options: dict[str, object] = {}
    if endpoint:
        scheme, _, host = endpoint.partition("://")
        options = {"endpoint_override": host or scheme, "scheme": scheme if host else "https"}
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        options["region"] = region
    filesystem = pafs.S3FileSystem(**options)
    root = f"{parsed.netloc}/{parsed.path.strip('/')}".rstrip("/")
    return StoreLocation(text=url, filesystem=filesystem, root=root, local=False)


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is a URL (``s3://…`` and other pyarrow URIs), not a directory."""
    return "://" in str(location)


def open_location(location: str | Path) -> StoreLocation:
    """The file system and root of ``location``.

    ``s3://`` URLs honour ``AWS_ENDPOINT_URL`` (or ``AWS_ENDPOINT_URL_S3``) for an
    S3-compatible server, and ``AWS_REGION``; other URIs go through
    ``pyarrow.fs.FileSystem.from_uri``; anything else is a local directory.

    Raises:
        StoreError: the URI cannot be opened.
    """
    text = str(location)
    if text.startswith("s3://"):
        return _s3(text)
    if is_url(text):
        try:
            filesystem, root = pafs.FileSystem.from_uri(text)
        except (OSError, pa.ArrowException) as exc:
            raise StoreError(
                f"cannot open the store: {exc}",
                file=text,
                hint="pass a local directory, s3://BUCKET/PREFIX, or a URI pyarrow opens",
            ) from None
        return StoreLocation(
            text=text,
            filesystem=filesystem,
            root=root.rstrip("/"),
            local=isinstance(filesystem, pafs.LocalFileSystem),
        )
    path = Path(text).absolute()
    if path.exists() and not path.is_dir():
        raise StoreError(
            "the store path is a file, not a directory",
            file=path,
            hint="pass a directory (created on the first append)",
        )
    return StoreLocation(
        text=text, filesystem=pafs.LocalFileSystem(), root=path.as_posix(), local=True
    )
