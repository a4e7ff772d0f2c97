"""The page: the markdown report as HTML with the forest plot, the figures inline, the run
explorer, a table of contents; one file with its styles and script inline, and a content
security policy that lets nothing load and no other script run."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping

from trajguard._text import counted
from trajguard.comparison import Verdict
from trajguard.report._render import render_markdown
from trajguard.report.html._assets import asset, csp_hash
from trajguard.report.html._escape import anchor, attr, text
from trajguard.report.html._forest import VERDICT_COLOUR, forest_svg
from trajguard.report.html._markup import inline, markdown_html
from trajguard.report.html._payload import RunPayload
from trajguard.results import ReportDocument, ReportKind

__all__ = ["render_page"]


class _Headings:
    """Ids for the headings, the scenarios' links to the explorer and their inline figures."""

    def __init__(
        self, document: ReportDocument, figures: Mapping[str, bytes], explorer: bool
    ) -> None:
        self.document, self.figures, self.explorer = document, figures, explorer
        names = [s.scenario for s in document.comparison.scenarios]
        self.ids = {name: anchor("s", i, name) for i, name in enumerate(names)}
        self.names = names
        self.next_scenario = 0
        self.in_scenarios = False
        self.toc: list[tuple[str, str]] = []
        self.by_plot = {path: name for name, path in document.plots.items()}

    def heading(self, level: int, raw: str) -> tuple[str, str, str]:
        if level == 1:
            return "top", "", ""
        if level == 2:
            ident = anchor("h", len(self.toc), raw)
            self.toc.append((ident, raw))
            self.in_scenarios = raw.strip() == "Scenarios"
            return ident, "", ""
        if level == 3 and self.in_scenarios and self.next_scenario < len(self.names):
            name = self.names[self.next_scenario]
            self.next_scenario += 1
            link = (
                f'<p class="explore"><a href="#explorer" data-explore={attr(name)}>explore its '
                'runs</a> · <a href="#forest-section">back to the forest plot</a></p>'
                if self.explorer
                else ""
            )
            # the whole name (the markdown's heading cuts a long one)
            title = f"{text(name)} — {inline(raw.rsplit(' — ', 1)[-1])}"
            return self.ids[name], title, link
        return anchor("h", 1000 + self.next_scenario, raw), "", ""

    def image(self, alt: str, src: str) -> str:
        name = self.by_plot.get(src)
        png = self.figures.get(name) if name is not None else None
        if png is None:
            return f"<p>({text(alt)}: not drawn)</p>"
        data = base64.b64encode(png).decode("ascii")
        return f'<img class="figure" alt={attr(alt)} src="data:image/png;base64,{data}">'


def _forest_section(document: ReportDocument, ids: Mapping[str, str]) -> str:
    legend = "".join(
        f'<span><span class="mark mark-{v.name.lower()}"></span>{text(v.value)}</span>'
        for v, c in VERDICT_COLOUR.items()
    )
    if document.ab is not None:
        title = "The comparison at a glance"
        sides = f"{text(document.ab.variant_b)} against {text(document.ab.variant_a)}"
    else:
        title, sides = "The night at a glance", "candidate against baseline"
    return (
        f'<section id="forest-section"><h2>{title}</h2>'
        f"<p>Every scenario's gating effects ({sides}) with their "
        f"{100 * (1 - document.comparison.config.alpha):.4g}% intervals; the shaded band is the "
        "scenario's tolerance band, the vertical line no change. A diamond marks a regression. "
        "Click a scenario to open its section.</p>"
        f'<p class="legend">{legend}</p><div class="forestwrap">'
        f"{forest_svg(document.comparison, ids)}</div></section>"
    )


def _legend_css() -> str:
    return "\n".join(
        f".mark-{v.name.lower()} {{ background: {c}; }}" for v, c in VERDICT_COLOUR.items()
    )


_SORTED = (
    ("", None),
    ("scenario", "scenario"),
    ("side", "side"),
    ("run", "id"),
    ("status", "status"),
    ("outcome", "passed"),
    ("criteria failed", None),
    ("tool sequence", "seq"),
    ("steps", "steps"),
    ("prompt tokens", "prompt"),
    ("completion tokens", "completion"),
    ("latency s", "duration"),
)


def _explorer(document: ReportDocument, runs: RunPayload | None) -> str:
    if runs is None:
        return (
            '<section id="explorer"><h2>Run explorer</h2><p>This page was rendered from '
            "<code>comparison.json</code> alone: its runs are not in it (render it from the "
            "run sets to explore them).</p></section>"
        )
    sides = json.dumps([document.baseline.label, document.candidate.label])
    first = next(
        (s.scenario for s in document.comparison.scenarios if s.verdict is Verdict.REGRESSED),
        document.comparison.scenarios[0].scenario if document.comparison.scenarios else "",
    )
    heads = "".join(
        f"<th data-sort={attr(key)}>{name}</th>" if key else f"<th>{name}</th>"
        for name, key in _SORTED
    )
    filters = "".join(
        f'<label>{label}<select id="x-{name}">{extra}</select></label>'
        for label, name, extra in (
            ("scenario", "scenario", ""),
            (
                "side",
                "side",
                '<option value="">both sides</option>'
                f'<option value="0">{text(document.baseline.label)}</option>'
                f'<option value="1">{text(document.candidate.label)}</option>',
            ),
            ("status", "status", ""),
            (
                "outcome",
                "passed",
                '<option value="">any outcome</option><option value="true">passed</option>'
                '<option value="false">failed</option><option value="null">not judged</option>',
            ),
            ("criterion failed", "criterion", ""),
            ("tool sequence", "sequence", ""),
        )
    )
    blobs = "\n".join(
        f'<script type="application/octet-stream" id="traj-{i}">{runs.trajectories[name]}</script>'
        for i, name in enumerate(s.scenario for s in document.comparison.scenarios)
    )
    return (
        '<section id="explorer"><h2>Run explorer</h2>'
        f"<p>{counted(runs.runs, 'run')}. Filter them, sort by a column, open one to read its "
        "steps, tool "
        "calls and results.</p><noscript><p>The run explorer needs JavaScript; the report "
        "above reads without it.</p></noscript>"
        f'<div id="explorer-ui" hidden data-sides={attr(sides)} data-first={attr(first)}>'
        f'<div class="filters">{filters}<span id="x-count"></span></div>'
        f'<div class="tablewrap"><table id="runs"><thead><tr>{heads}</tr></thead><tbody>'
        '</tbody></table></div><div class="pager"><button type="button" id="x-prev">previous'
        '</button><span id="x-page"></span><button type="button" id="x-next">next</button>'
        '</div><div id="x-viewer" hidden></div></div>'
        f'<script type="application/octet-stream" id="run-rows">{runs.rows}</script>\n{blobs}'
        "</section>"
    )


_MANY = 20
"""Above this many scenarios, off-screen parts of the page are laid out only when shown."""


def render_page(
    document: ReportDocument, *, runs: RunPayload | None, figures: Mapping[str, bytes]
) -> str:
    """The whole page (see :func:`trajguard.report.html.render_html`)."""
    markdown = render_markdown(document)
    # the forest plot follows the headline: before the summary table (an A/B's overall tests)
    marker = "\n## Per scenario" if document.kind is ReportKind.AB else "\n| scenario | verdict"
    cut = markdown.find(marker)
    head, rest = (markdown, "") if cut < 0 else (markdown[:cut], markdown[cut:])
    headings = _Headings(document, figures, explorer=runs is not None)
    hooks = (headings.heading, headings.image)
    top = markdown_html(head, hooks)
    if document.ab is not None:  # an A/B's answer, not its per-scenario verdict
        cls = {"hurt": "regressed", "helped": "improved"}.get(document.ab.answer.value, "")
    else:
        cls = {Verdict.REGRESSED: "regressed", Verdict.IMPROVED: "improved"}.get(
            document.comparison.verdict, ""
        )
    for lead in ("<p><strong>Verdict:", "<p><strong>Answer:"):
        top = top.replace(lead, f'<p class="verdict {cls}" id="verdict">{lead[3:]}', 1)
    body = markdown_html(rest, hooks)
    toc = [("forest-section", "At a glance"), *headings.toc, ("explorer", "Run explorer")]
    nav = "".join(f'<a href="#{ident}">{text(label)}</a>' for ident, label in toc)
    style = asset("report.css") + "\n" + _legend_css()
    script = asset("sidebyside.js") + "\n" + asset("explorer.js")
    policy = (
        f"default-src 'none'; img-src data:; style-src {csp_hash(style)}; "
        f"script-src {csp_hash(script)}; base-uri 'none'; form-action 'none'"
    )
    title = f"trajguard {document.kind.value} report: {document.suite}"
    opening = '<body class="many">' if len(document.comparison.scenarios) > _MANY else "<body>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title><style>{style}</style></head>\n"
        f"{opening}"
        f'<header class="top"><nav class="toc">{nav}</nav></header><main>\n{top}\n'
        f"{_forest_section(document, headings.ids)}\n{body}\n{_explorer(document, runs)}\n"
        "<footer>Rendered by trajguard from the comparison's result document; one file, no "
        "network requests.</footer></main>\n"
        f"<script>{script}</script></body></html>\n"
    )
