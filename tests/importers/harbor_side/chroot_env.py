"""A Harbor environment without containers: each command runs chrooted in a private root.

Harbor's tasks address fixed sandbox paths (``/app``, ``/tests``, ``/logs/verifier``), so a
plain subprocess would write into the host's ``/``. Here every ``exec`` runs ``unshare --mount``
(a private mount namespace; as root, or in a user namespace otherwise) that binds the host's
``/usr`` (read-only) into the trial's own root directory and ``chroot``s into it: the task's
paths land in that directory, beside the trial's output, and nothing is left mounted. Files are
uploaded and downloaded by copying into and out of that root. Harbor loads the class by its
import path (``--environment-import-path chroot_env:ChrootEnvironment``).

Runs in Harbor's venv (Python >= 3.12), not in trajguard's.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
from pathlib import Path
from typing import Any

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

_LINKS = {"bin": "usr/bin", "lib": "usr/lib", "lib64": "usr/lib64", "sbin": "usr/sbin"}
_DIRS = (
    "tests",
    "solution",
    "tmp",
    "logs/agent",
    "logs/verifier",
    "logs/artifacts",
    "etc",
    "root",
    "dev",
    "proc",
    "usr",
)


class ChrootEnvironment(BaseEnvironment):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.root = Path(self.trial_paths.trial_dir) / "sandbox"
        self._chroot = shutil.which("chroot") or "/usr/sbin/chroot"

    @staticmethod
    def type() -> str:
        return "trajguard-chroot"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities()

    def _validate_definition(self) -> None:
        if shutil.which("unshare") is None or shutil.which("chroot") is None:
            raise FileNotFoundError("the chroot environment needs unshare and chroot (util-linux)")

    async def start(self, force_build: bool) -> None:
        for name in _DIRS:
            (self.root / name).mkdir(parents=True, exist_ok=True)
        for name, target in _LINKS.items():
            link = self.root / name
            if not link.exists() and not link.is_symlink():
                link.symlink_to(target)
        for name in ("passwd", "group", "hosts", "resolv.conf", "nsswitch.conf"):
            source = Path("/etc") / name
            if source.is_file():
                shutil.copyfile(source, self.root / "etc" / name)
        workdir = self.task_env_config.workdir or "/app"
        (self.root / workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)

    async def stop(self, delete: bool) -> None:
        if delete:
            shutil.rmtree(self.root, ignore_errors=True)

    def _host(self, path: str) -> Path:
        return self.root / str(path).lstrip("/")

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        target = self._host(target_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source_path, target)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        shutil.copytree(source_dir, self._host(target_dir), dirs_exist_ok=True)

    async def download_file(self, source_path: str, target_path: Path | str) -> None:
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self._host(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str) -> None:
        source = self._host(source_dir)
        if source.is_dir():
            shutil.copytree(source, target_dir, dirs_exist_ok=True)

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        workdir = cwd or self.task_env_config.workdir or "/app"
        root = shlex.quote(str(self.root))
        inner = f"cd {shlex.quote(workdir)} && {command}"
        script = (
            f"mount --bind /usr {root}/usr && mount -o remount,bind,ro {root}/usr && "
            f"mount --rbind /dev {root}/dev && "
            f"exec {shlex.quote(self._chroot)} {root} /bin/bash -c {shlex.quote(inner)}"
        )
        namespace = (
            [shutil.which("unshare") or "unshare", "--mount"]
            if os.geteuid() == 0
            else ["unshare", "-U", "-r", "-m"]
        )
        merged = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
        merged.update(self._merge_env(env) or {})
        process = await asyncio.create_subprocess_exec(
            *namespace,
            "/bin/sh",
            "-c",
            script,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=merged,
        )
        try:
            stdout, stderr = await asyncio.wait_for(process.communicate(), timeout_sec)
        except TimeoutError:
            process.kill()
            await process.communicate()
            raise
        return ExecResult(
            stdout=stdout.decode(errors="replace"),
            stderr=stderr.decode(errors="replace"),
            return_code=process.returncode or 0,
        )
