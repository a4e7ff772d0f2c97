"""Atomic file writes: a temp file in the target's directory, then a rename.

A reader never sees a half-written file, and an interrupted write leaves no partial file behind
(the temp file is removed). The result gets the permissions a plain ``open()`` would give
(0666 less the umask), not the 0600 of ``mkstemp``: run sets and reports are shared artifacts.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import hashlib
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "NAME_PATTERN",
    "atomic_write",
    "atomic_write_text",
    "default_mode",
    "exchange",
    "is_safe_name",
    "test_artifact_path",
]

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$"
"""Suite, scenario and variant names: each may become one path component (``baselines/<suite>``,
``reports/<suite>-<time>``), so no separators, no leading dot, nothing a shell would expand."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")
# pytest's name of a parametrised test, "<function>[<parameter id>]".
_PARAMETRISED = re.compile(r"([^\[]+)\[(.*)\]", re.DOTALL)
_PROC_STATUS = Path("/proc/self/status")
_UMASK_LINE = re.compile(rb"^Umask:\s*([0-7]+)\s*$", re.MULTILINE)


def is_safe_name(value: object) -> bool:
    """``value`` is a string :data:`NAME_PATTERN` accepts (safe as one path component)."""
    return isinstance(value, str) and re.fullmatch(NAME_PATTERN, value) is not None


@functools.cache
def _umask() -> int:
    """The process umask, read once.

    Linux reports it in ``/proc/self/status``. Elsewhere the only way to read it is to set it
    and restore it, which for a moment gives files created by other threads a umask of 0.
    """
    try:
        found = _UMASK_LINE.search(_PROC_STATUS.read_bytes())
    except OSError:
        found = None
    if found is not None:
        return int(found.group(1), 8)
    umask = os.umask(0)
    os.umask(umask)
    return umask


def default_mode(*, directory: bool = False) -> int:
    """The mode ``open()`` (or ``mkdir()``) would create, given the process umask.

    The umask is read once per process: change it before trajguard first writes a file.
    """
    return (0o777 if directory else 0o666) & ~_umask()


def atomic_write(path: Path, write: Callable[[str], None]) -> None:
    """Create ``path`` atomically; ``write`` receives the temp file's name and fills it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        write(temp)
        os.chmod(temp, default_mode())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """Linux's ``renameat2`` from the C library, or ``None`` where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library older than glibc 2.28, or not glibc
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    function.argtypes += [ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange(first: Path, second: Path) -> bool:
    """Swap two existing paths (directories included) in one atomic step, where the system can
    (Linux's ``renameat2(RENAME_EXCHANGE)``): a reader, or a kill at any moment, sees the one or
    the other, never neither. ``False`` where it cannot (another system, an old kernel, a file
    system without it): the caller falls back to two renames.

    Raises:
        OSError: the system could exchange but failed (a path missing, permission denied).
    """
    function = _renameat2()
    if function is None:
        return False
    status = function(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if status == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))


def remove_stale_temp_files(directory: Path) -> list[Path]:
    """Delete the temp files :func:`atomic_write` left in ``directory`` when it was killed.

    Only the owner of a directory may call this (a resumed batch owns its run set): a temp file
    another live process is still filling would be deleted under it.
    """
    removed = []
    if directory.is_dir():
        for temp in directory.glob(".*.tmp"):
            if temp.is_file():
                temp.unlink(missing_ok=True)
                removed.append(temp)
    return removed


def atomic_write_text(path: Path, text: str) -> None:
    """Write UTF-8 text (``\\n`` line ends) to ``path`` atomically."""

    def write(temp: str) -> None:
        with open(temp, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)

    atomic_write(path, write)


def _clean(raw: str) -> str:
    return _UNSAFE.sub("_", raw).strip("_")


def _test_stem(test_name: str) -> str:
    """The file-name form of a test name, distinct for distinct test names of a module.

    A safe name stays as it is and a safe parametrised id is joined with ``_`` (``test_x[a-1]``
    → ``test_x_a-1``). Cleaning any other name loses characters (``a b`` and ``a/b`` both give
    ``a_b``), so a short hash of the full name is appended.
    """
    cleaned = _clean(test_name)
    parametrised = _PARAMETRISED.fullmatch(test_name)
    if cleaned == (f"{parametrised[1]}_{parametrised[2]}" if parametrised else test_name):
        return cleaned
    digest = hashlib.sha256(test_name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned}-{digest}" if cleaned else digest


def test_artifact_path(test_file: Path, test_name: str, *, name: str | None, folder: str) -> Path:
    """A test's golden or cassette: ``<test dir>/<folder>/<module>/<test>[.<name>].json``.

    A parametrised id made of safe characters (letters, digits, ``_.-``) becomes part of the
    file name: ``test_x[a-1]`` → ``test_x_a-1.json``. Any other id is cleaned (unsafe runs become
    ``_``) and gets a short hash of the test name, ``test_x[a b]`` → ``test_x_a_b-<hash>.json``,
    so that ids pytest makes from parameter values never share a file. ``name`` is chosen by the
    caller and only cleaned (``live run`` → ``live_run``).
    """
    stem = _test_stem(test_name)
    if name:
        stem += "." + _clean(name)
    return test_file.parent / folder / test_file.stem / f"{stem}.json"
