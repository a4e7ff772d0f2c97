"""The ATIF rules N1 to N11, kept importable here: they live in :mod:`trajguard.atif` now.

:func:`check_normative` returns every violation (errors and warnings, each with its JSON path);
:func:`trajguard.atif.validate` gives the verdict on a whole document.
"""

from trajguard.atif import Violation, check_normative

__all__ = ["Violation", "check_normative"]
