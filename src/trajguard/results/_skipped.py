"""A file a reader passed over: named, with the reason, so a user can remove or repair it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SkippedFile"]


@dataclass(frozen=True, kw_only=True)
class SkippedFile:
    """A file in the store of nights that no night was read from."""

    path: str
    """the file, as the store's file system names it."""
    reason: str
    """why it was skipped (not a night's file, not Parquet, unreadable), in words."""

    @property
    def warning(self) -> str:
        """The one-line warning a command prints for it."""
        return f"skipped {self.path} in the store of nights: {self.reason}; remove or repair it"
