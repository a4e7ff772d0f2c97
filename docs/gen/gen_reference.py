"""Regenerate the documentation that is derived from the code, and the pages the package ships.

    python docs/gen/gen_reference.py           # rewrite every stale file
    python docs/gen/gen_reference.py --check   # list the stale files, exit 1 if any

It fills the regions between ``<!-- generated: NAME ... -->`` and ``<!-- end generated -->`` of
the hand-written pages under docs/ — the command line from the argparse parser, the suite's
fields and criteria from its pydantic models, the run table's columns from its Parquet schema —
and writes ``src/trajguard/docs/NAME.md``, the pages ``trajguard docs NAME`` prints offline.

One source of truth: the pages under docs/ (what the site builds and GitHub shows) are the ones
people edit. The shipped copies are generated from them (a page's relative links rewritten to
repository paths such as ``docs/how-to/nightly.md``, which mean something in a terminal), and
``tests/docs/test_reference.py`` fails when a committed file differs from what this script
writes, so neither can drift. The shipped files are generated rather than read from docs/ at run
time because an installed wheel has no docs/ directory.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import os
import posixpath
import re
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
SHIPPED_DIR = REPO / "src" / "trajguard" / "docs"
REGENERATE = "python docs/gen/gen_reference.py"

# `trajguard docs NAME` prints these pages, concatenated (trajguard.cli.docs.DOCS describes them).
SHIPPED: dict[str, tuple[str, ...]] = {
    "statistics": ("explanation/statistics.md",),
    "architecture": ("explanation/architecture.md",),
    "comparison-json": ("reference/comparison-json.md",),
    "runs": ("reference/runs.md",),
    "report-html": ("reference/report-html.md",),
    "nights": ("how-to/nights.md", "reference/nights-store.md"),
    "scenarios-from-data": ("how-to/datasets-and-judges.md",),
    "suite": ("reference/suite.md",),
    "runset": ("reference/runset.md",),
    "atif": ("reference/atif.md",),
    "limits": ("reference/limits.md",),
    "nightly": ("how-to/nightly.md",),
    "ab": ("how-to/ab.md",),
    "frozen-mode": ("how-to/frozen-mode.md",),
    "frameworks": ("how-to/frameworks.md",),
    "command-agents": ("how-to/command-agents.md",),
    "ray": ("how-to/ray.md",),
    "chaos": ("how-to/chaos.md",),
    "ci": ("how-to/ci.md", "how-to/pull-request-comment.md"),
    "tutorial": ("tutorial.md",),
    "importing": (
        "how-to/importing.md",
        "reference/import-inspect.md",
        "reference/import-promptfoo.md",
        "reference/import-harbor.md",
    ),
}

# What each column of the run table means (trajguard.store.RUN_SCHEMA); a column without an
# entry here stops the generator, so a new column cannot go undocumented.
COLUMNS = {
    "run_id": "the run's id, unique in the batch",
    "batch_id": "the batch's id (the manifest's; rows of another batch are refused)",
    "suite": "the suite's name",
    "scenario": "the scenario's id",
    "variant": "the variant's name (`base`: no overrides)",
    "run_index": "the run's index within its scenario and variant",
    "model": "the litellm model string the run's agent called",
    "seed": "the run's seed, derived from the batch seed and the run id",
    "started_at": "when the run started (UTC)",
    "duration_s": "the run's wall time, in seconds",
    "git_sha": "the commit of the working directory the batch ran in",
    "config_hash": "the hash of the scenario's definition under its variant (prompt text, "
    "parameters, faults, judges, a data row's columns)",
    "trajguard_version": "the trajguard that ran it",
    "atif_schema_version": "the ATIF version of the stored trajectory",
    "status": "`ok`, `agent_error`, `harness_error` or `timeout` (below)",
    "error_type": "how it failed: the exception's class, the reason (`max_steps`), or the "
    "provider's failure (`unreachable`, `rate_limited`, …; below)",
    "error_message": "the whole error message, redacted",
    "passed": "whether every pass criterion held (a crash never passes); null for harness errors",
    "failed_criteria": "the criteria that failed, as `<kind>: <reason>`; a crash's first entry is "
    "how it ended",
    "criteria": "one `{criterion, held, reason, error}` per pass criterion, in the suite's order "
    "(store schema 2); null for runs not judged and in files of schema 1",
    "crashed": "whether the run did not end normally; null for harness errors",
    "step_count": "steps of the trajectory",
    "agent_steps": "steps taken by the agent (model calls and their tool calls)",
    "llm_calls": "model calls",
    "tool_call_count": "tool calls",
    "tool_sequence": "the tools called, in order",
    "tool_counts": "calls per tool",
    "prompt_tokens": "prompt tokens over the run",
    "completion_tokens": "completion tokens over the run",
    "total_tokens": "prompt plus completion tokens",
    "cost_usd": "US dollars of the agent's model calls: the cost the source recorded, else "
    "each call priced from the suite's `prices:` table, else from litellm's bundled price map; "
    "null when some call's model has no price (unknown, never 0). The judge's calls are not in it",
    "subagent_count": "embedded subagent trajectories",
    "content_hash": "the hash of the normalised trajectory's content",
    "final_output": "the run's final answer",
    "trajectory": "the normalised ATIF trajectory, as JSON",
    "faults_injected": "faults the run met ([chaos](../how-to/chaos.md)); null for arms without "
    "faults",
    "fault_kinds": "faults met per kind",
    "retried_after_fault": "the faulted tool (or the model) was called again; judged only on runs "
    "that met a fault that denied them a right answer",
    "recovered_or_escalated": "it later succeeded, or the answer says it could not be done",
    "no_fabricated_result": "the answer shows none of the values a faulted tool would have given "
    "(needs a `no_fabricated_result` criterion)",
    "judge_calls": "JSON: per judge criterion, each sample's verdict, reason and tokens, and "
    "whether the run's own cache answered (the same run asking again, never another run); "
    "null without judges",
    "stop_reason": "why a conversation ended: `user_done`, `max_turns`, `agent_ended` or `error` "
    "([conversations](suite.md#conversations)); null for a scenario of one message",
    "user_turns": "the user's messages in a conversation; null for a scenario of one message",
    "judge_cost_usd": "US dollars of the judge's calls of this run (priced like `cost_usd`; a "
    "cached judgement made no call); null without judge calls or when the judge model has no "
    "price",
    "user_cost_usd": "US dollars of the simulated user's calls of this run (priced like "
    "`cost_usd`, at the user's `user_model`), apart from the agent's and the judge's; null "
    "without a simulated user or when its model has no price",
}

_REGION = re.compile(
    r"(<!-- generated: (?P<name>[\w-]+)[^>]*-->\n)(?P<body>.*?)(<!-- end generated -->)", re.S
)
_LINK = re.compile(r"(\]\()(?P<target>[^)\s]+)(\))")


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


# ---- the command line ------------------------------------------------------------------------


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:  # type: ignore[type-arg]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _text(text: str) -> str:
    """Help text as Markdown prose: ``<date>`` is a placeholder, not an HTML tag."""
    return " ".join(text.split()).replace("<", "&lt;").replace(">", "&gt;")


def _option_row(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()
    if action.option_strings:
        shown = action.option_strings
        if action.nargs != 0:
            value = formatter._format_args(action, action.dest.upper())
            shown = [f"{name} {value}" for name in action.option_strings]
        names = ", ".join(f"`{name}`" for name in shown)
    else:
        names = f"`{formatter._format_args(action, action.dest)}`"
    help_text = formatter._expand_help(action) if action.help else ""
    return f"| {_cell(names)} | {_cell(_text(help_text))} |"


def _command_section(
    parser: argparse.ArgumentParser, title: str, level: int, help_line: str
) -> list[str]:
    lines = [f"{'#' * level} `{title}`", ""]
    if help_line:
        lines += [_text(help_line[0].upper() + help_line[1:]) + ".", ""]
    lines += ["```", parser.format_usage().strip(), "```", ""]
    if parser.description:
        lines += [textwrap.fill(_text(parser.description), 100), ""]
    rows = [
        _option_row(parser, action)
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and action.help != argparse.SUPPRESS
    ]
    if rows:
        lines += ["| argument | what it does |", "|---|---|", *rows, ""]
    subs = _subparsers(parser)
    if subs is not None:
        helps = {a.dest: a.help or "" for a in subs._choices_actions}
        for name, sub in subs.choices.items():
            lines += _command_section(sub, f"{title} {name}", level + 1, helps.get(name, ""))
    return lines


def cli_reference() -> str:
    from trajguard.cli import build_parser

    parser = build_parser()
    width, os.environ["COLUMNS"] = os.environ.get("COLUMNS"), "100"  # argparse wraps to it
    try:
        return _cli_reference(parser)
    finally:
        if width is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = width


def _cli_reference(parser: argparse.ArgumentParser) -> str:
    commands = _subparsers(parser)
    assert commands is not None
    helps = {a.dest: a.help or "" for a in commands._choices_actions}
    lines = ["```", parser.format_usage().strip(), "```", ""]
    options = [
        _option_row(parser, action)
        for action in parser._actions
        if action.option_strings and not isinstance(action, argparse._HelpAction)
    ]
    lines += ["| option | what it does |", "|---|---|", *options, ""]
    lines += ["| command | what it does |", "|---|---|"]
    lines += [
        f"| [`{name}`](#trajguard-{name}) | {_cell(_text(helps[name]))} |"
        for name in commands.choices
    ]
    lines.append("")
    for name, sub in commands.choices.items():
        lines += _command_section(sub, f"trajguard {name}", 3, helps[name])
    return "\n".join(lines)


# ---- the suite ---------------------------------------------------------------------------------


def _attribute_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (a string right after ``name: type = ...``) of a class and its bases."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.split(".")[0] != "trajguard":
            continue
        body = ast.parse(textwrap.dedent(inspect.getsource(klass))).body[0]
        assert isinstance(body, ast.ClassDef)
        for node, after in zip(body.body, body.body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                found[node.target.id] = _prose(after.value.value)
    return found


def _type_name(annotation: Any) -> str:
    """A type as a suite's author reads it: ``int | null``, ``list[str]``, ``"json" | "native"``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is typing.Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(arg) for arg in args)
    if annotation is type(None):
        return "null"
    if annotation is Ellipsis:
        return "..."
    if origin is not None:
        inner = ", ".join(_type_name(arg) for arg in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if isinstance(annotation, type):
        return {"str": "string", "float": "number", "int": "integer", "bool": "boolean"}.get(
            annotation.__name__, annotation.__name__
        )
    return str(annotation).replace("typing.", "")


def _prose(text: str) -> str:
    """A docstring as Markdown: reST's double backticks and roles become code spans."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    return re.sub(r"``(.+?)``", r"`\1`", " ".join(text.split()))


def _default(field: Any) -> str:
    from pydantic_core import PydanticUndefined

    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is PydanticUndefined:
        return "required"
    if hasattr(value, "model_dump"):
        return "its fields' defaults"
    try:
        return f"`{json.dumps(value, ensure_ascii=False)}`"
    except TypeError:
        return f"`{value}`"


def _constraints(field: Any) -> str:
    shown = []
    for item in field.metadata:
        for key, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(item, key, None)
            if value is not None:
                shown.append(f"{sign} {value:g}" if isinstance(value, float) else f"{sign} {value}")
        for key in ("min_length", "max_length", "pattern"):
            value = getattr(item, key, None)
            if value is not None:
                shown.append(f"{key} `{value}`")
    return ", ".join(shown)


_HIDDEN_FIELDS = {"path", "source_row"}  # set by the loader, never written in a suite


def _model_table(model: type, skip: Iterable[str] = ()) -> list[str]:
    docs = _attribute_docs(model)
    rows = ["| field | type | default | what it is |", "|---|---|---|---|"]
    for name, field in model.model_fields.items():  # type: ignore[attr-defined]
        if name in _HIDDEN_FIELDS or name in skip:
            continue
        key = field.alias or name
        limits = _constraints(field)
        what = docs.get(name, "")
        if limits:
            what = f"{what} ({limits})" if what else limits
        rows.append(
            f"| `{key}` | {_cell(_type_name(field.annotation))} | {_cell(_default(field))} | "
            f"{_cell(what)} |"
        )
    return rows


def suite_fields() -> str:
    from trajguard import suite
    from trajguard.capture import Price
    from trajguard.faults import FaultSpec

    models: list[tuple[str, type, str]] = [
        ("suite", suite.Suite, "the file's top level"),
        ("defaults", suite.Defaults, "`defaults:`: what every scenario inherits"),
        ("executor: local", suite.LocalExecutorSettings, "`defaults.executor` (the default)"),
        ("executor: ray", suite.RayExecutorSettings, "`defaults.executor: {kind: ray, …}`"),
        ("scenario", suite.Scenario, "one entry of `scenarios:`"),
        ("agent: builtin", suite.BuiltinAgent, "`agent: {kind: builtin, …}`"),
        ("agent: callable", suite.CallableAgent, "`agent: {kind: callable, …}`"),
        ("agent: command", suite.CommandAgent, "`agent: {kind: command, …}`"),
        ("turn", suite.ScriptedTurn, "one entry of a scenario's `turns:` (or just its text)"),
        ("user", suite.SimulatedUserSettings, "a scenario's `user:`: a simulated user"),
        ("variant", suite.Variant, "one entry of `variants:` (suite-level or a scenario's)"),
        ("fault", FaultSpec, "one entry of `faults:` ([chaos](../how-to/chaos.md))"),
        ("pairwise", suite.PairwiseJudge, "`pairwise:`: the A/B's pairwise judge"),
        ("floor", suite.Floor, "`floor:` in `defaults` or a scenario ([floors](#floors))"),
        ("price", Price, "one entry of `prices:` (model string → its price)"),
    ]
    lines: list[str] = []
    for title, model, where in models:
        doc = _prose(inspect.cleandoc(model.__doc__ or "").split("\n\n")[0])
        lines += [f"### {title}", "", f"{where[0].upper()}{where[1:]}. {doc}", ""]
        lines += [*_model_table(model), ""]
    return "\n".join(lines).rstrip("\n")


def suite_criteria() -> str:
    from trajguard.suite import CRITERION_TYPES

    rows = ["| criterion | fields | holds when |", "|---|---|---|"]
    for model in CRITERION_TYPES:
        kind = model.model_fields["kind"].default
        fields = []
        for name, field in model.model_fields.items():
            if name == "kind":
                continue
            default = "" if field.is_required() else f" = {_default(field).strip('`')}"
            fields.append(f"`{name}: {_type_name(field.annotation)}{default}`")
        doc = _prose(model.__doc__ or "")
        rows.append(f"| `{kind}` | {_cell(', '.join(fields))} | {_cell(doc)} |")
    return "\n".join(rows)


# ---- the run table -----------------------------------------------------------------------------


def runset_columns() -> str:
    from trajguard.store import RUN_SCHEMA

    names = list(RUN_SCHEMA.names)
    undocumented = [name for name in names if name not in COLUMNS]
    unknown = sorted(set(COLUMNS) - set(names))
    if undocumented or unknown:
        raise SystemExit(
            f"docs/gen/gen_reference.py: COLUMNS lacks {undocumented} / names no column {unknown}: "
            "describe every column of trajguard.store.RUN_SCHEMA there"
        )
    rows = ["| column | Arrow type | null | what it is |", "|---|---|---|---|"]
    for field in RUN_SCHEMA:
        null = "" if field.nullable else "never"
        rows.append(f"| `{field.name}` | `{field.type}` | {null} | {COLUMNS[field.name]} |")
    return "\n".join(rows)


GENERATORS: dict[str, Callable[[], str]] = {
    "cli": cli_reference,
    "suite-fields": suite_fields,
    "suite-criteria": suite_criteria,
    "runset-columns": runset_columns,
}


# ---- putting it together -----------------------------------------------------------------------


def fill(text: str, page: str) -> str:
    """The page with every generated region filled in."""

    def region(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in GENERATORS:
            raise SystemExit(f"{page}: unknown generated region {name!r}")
        return f"{match.group(1)}{GENERATORS[name]()}\n{match.group(4)}"

    return _REGION.sub(region, text)


def shipped_text(page: str, text: str) -> str:
    """A page as `trajguard docs` prints it: relative links become repository paths."""

    def link(match: re.Match[str]) -> str:
        target = match.group("target")
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join("docs", posixpath.dirname(page), path))
        return f"{match.group(1)}{resolved}{'#' + anchor if anchor else ''}{match.group(3)}"

    return _LINK.sub(link, _REGION.sub(lambda m: m.group("body"), text))


def expected_files() -> dict[Path, str]:
    """Every generated file and the text it must hold."""
    pages = {
        str(path.relative_to(DOCS)): path.read_text("utf-8") for path in sorted(DOCS.rglob("*.md"))
    }
    filled = {page: fill(text, page) for page, text in pages.items() if _REGION.search(text)}
    out: dict[Path, str] = {DOCS / page: text for page, text in filled.items()}
    for name, sources in SHIPPED.items():
        parts = [shipped_text(page, filled.get(page, pages[page])).rstrip("\n") for page in sources]
        out[SHIPPED_DIR / f"{name}.md"] = "\n\n".join(parts) + "\n"
    return out


def stale_files() -> list[Path]:
    """Generated files whose committed text differs from what this script writes, and shipped
    pages no entry of SHIPPED generates any more."""
    expected = expected_files()
    stale = [
        path
        for path, text in expected.items()
        if not path.is_file() or path.read_text("utf-8") != text
    ]
    stale += sorted(p for p in SHIPPED_DIR.glob("*.md") if p not in expected)
    return stale


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = stale_files()
    if check:
        for path in stale:
            print(f"stale: {path.relative_to(REPO)}")
        return 1 if stale else 0
    expected = expected_files()
    for path in stale:
        if path in expected:
            path.write_text(expected[path], "utf-8")
            print(f"wrote {path.relative_to(REPO)}")
        else:
            path.unlink()
            print(f"removed {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    raise SystemExit(main(sys.argv[1:]))
