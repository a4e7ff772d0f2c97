"""Write the committed Inspect logs of the react, error, limit and dict-scorer cases.

    .venv/bin/python tests/importers/inspect_side/make_logs.py tests/importers/data/inspect

runs ``inspect_ai.eval()`` (Inspect AI 0.3.285, the version in trajguard's venv; the logs name
it in ``eval.packages``) on the two tasks of tasks.py, two epochs each, with the scripted model
(scripted_model.py, registered through Inspect's ``@modelapi``) and ``fail_on_error=False`` (an
errored sample is logged, not fatal), and copies each log as ``react-submit.eval`` and
``troubles.eval``. Everything in them is Inspect's: its eval loop, ``react()``, the tool calls,
the limits, the scorers, their metrics and the log writer; only the model's replies are
scripted, so the logs are the same on any machine but for ids and times.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
EPOCHS = 2
NAMES = {"react_submit": "react-submit.eval", "troubles": "troubles.eval"}


def _load(name: str) -> ModuleType:
    """A module of this folder under a name of its own (no change to ``sys.path``)."""
    qualified = f"trajguard_inspect_side_{name}"
    if qualified in sys.modules:
        return sys.modules[qualified]
    spec = importlib.util.spec_from_file_location(qualified, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[qualified] = module
    spec.loader.exec_module(module)
    return module


def write_logs(out: Path) -> dict[str, Path]:
    """Run both tasks; the written logs, by task name, copied into ``out``."""
    from inspect_ai import eval as inspect_eval

    _load("scripted_model")  # registers the "scripted" model with Inspect
    tasks = _load("tasks")

    written = {}
    with tempfile.TemporaryDirectory() as logs:
        for name, file in NAMES.items():
            (log,) = inspect_eval(
                getattr(tasks, name)(),
                model="scripted/script",
                epochs=EPOCHS,
                fail_on_error=False,
                log_dir=logs,
                log_format="eval",
                display="none",
            )
            target = out / file
            shutil.copyfile(log.location, target)
            written[name] = target
    return written


if __name__ == "__main__":
    destination = Path(sys.argv[1]).resolve()
    destination.mkdir(parents=True, exist_ok=True)
    for path in write_logs(destination).values():
        print(path)
