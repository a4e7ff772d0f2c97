"""The markdown the report renderers write, as HTML: the subset they use (headings, tables,
lists, paragraphs, code spans and fences, bold, ``<sub>``, ``<details>``), nothing more.

Every run of text is unescaped from markdown and HTML and escaped again (:func:`text`), so no
character of a scenario name, model output or tool argument reaches the page as markup: the
only tags on the page are the ones this module writes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator, Sequence

from trajguard.comparison import Verdict
from trajguard.report._format import MARK
from trajguard.report.html._escape import text

__all__ = ["Hooks", "inline", "markdown_html"]

Hooks = tuple[Callable[[int, str], tuple[str, str, str]], Callable[[str, str], str]]
"""``heading(level, text) -> (id, its HTML or "" for the text's, HTML after it)`` and
``image(alt, src) -> html``."""

_CODE = re.compile(r"(?<![\\`])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_TOKEN = re.compile(r"\\([|`*_\[\]\\])|(\*\*)|(</?(?:sub|code|strong|summary|details)>)")
_IMAGE = re.compile(r"^!\[(.*)\]\(([^)]*)\)$")
_FENCE = re.compile(r"^(`{3,})")
_PIPE = re.compile(r"(?<!\\)\|")
_MARKS = {
    MARK[v].split()[0]: f'<span class="mark mark-{v.name.lower()}" aria-hidden="true"></span>'
    for v in Verdict
}
_MARK = re.compile("|".join(map(re.escape, _MARKS)))


def _plain(segment: str) -> str:
    out: list[str] = []
    strong = False
    position = 0
    for match in _TOKEN.finditer(segment):
        out.append(text(html.unescape(segment[position : match.start()])))
        position = match.end()
        char, stars, tag = match.groups()
        if char is not None:
            out.append(text(char))
        elif stars is not None:
            out.append("</strong>" if strong else "<strong>")
            strong = not strong
        else:
            out.append(tag)
    out.append(text(html.unescape(segment[position:])))
    if strong:
        out.append("</strong>")
    return "".join(out)


def inline(line: str) -> str:
    """One line of markdown text as HTML."""
    out: list[str] = []
    position = 0
    for match in _CODE.finditer(line):
        out.append(_plain(line[position : match.start()]))
        out.append(f"<code>{text(match.group(2).strip())}</code>")
        position = match.end()
    out.append(_plain(line[position:]))
    return _MARK.sub(lambda m: _MARKS[m.group()], "".join(out))


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip() for cell in _PIPE.split(body)]


def _table(rows: Sequence[str]) -> str:
    head = _cells(rows[0])
    aligns = ["num" if c.endswith(":") else "" for c in _cells(rows[1])] if len(rows) > 1 else []
    out = ['<div class="tablewrap"><table><thead><tr>']
    out += [f"<th>{inline(c)}</th>" for c in head]
    out.append("</tr></thead><tbody>")
    for row in rows[2:]:
        cells = _cells(row)
        out.append("<tr>")
        for i, cell in enumerate(cells):
            cls = f' class="{aligns[i]}"' if i < len(aligns) and aligns[i] else ""
            out.append(f"<td{cls}>{inline(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _blocks(lines: Sequence[str]) -> Iterator[tuple[str, list[str]]]:
    """The lines grouped into blocks: (kind, lines)."""
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            end = i + 1
            while end < len(lines) and lines[end] != fence.group(1):
                end += 1
            yield "pre", list(lines[i + 1 : end])
            i = end + 1
            continue
        for kind, starts in (("table", "|"), ("list", "- "), ("quote", ">")):
            if line.startswith(starts):
                end = i
                while end < len(lines) and lines[end].startswith(starts):
                    end += 1
                yield kind, list(lines[i:end])
                i = end
                break
        else:
            yield ("blank" if not line.strip() else "line"), [line]
            i += 1


def markdown_html(markdown: str, hooks: Hooks) -> str:
    """The report's markdown as HTML (headings get the ids and trailers ``hooks`` give)."""
    heading, image = hooks
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(f"<p>{' '.join(inline(p) for p in paragraph)}</p>")
            paragraph.clear()

    for kind, lines in _blocks(markdown.split("\n")):
        if kind != "line":
            flush()
        if kind == "pre":
            out.append(f"<pre>{text(chr(10).join(lines), keep_lines=True)}</pre>")
        elif kind == "table":
            out.append(_table(lines))
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{inline(x[2:])}</li>" for x in lines) + "</ul>")
        elif kind == "quote":
            body = " ".join(inline(x.lstrip("> ").strip()) for x in lines)
            out.append(f'<div class="warning">{body}</div>')
        elif kind == "line":
            line = lines[0].strip()
            level = len(line) - len(line.lstrip("#"))
            found = _IMAGE.match(line)
            if 0 < level <= 4 and line[level : level + 1] == " ":
                flush()
                ident, title, after = heading(level, line[level + 1 :])
                title = title or inline(line[level + 1 :])
                out.append(f'<h{level} id="{ident}">{title}</h{level}>')
                out.append(after)
            elif found:
                flush()
                out.append(image(found.group(1), found.group(2)))
            elif line.startswith(("<details>", "</details>")):
                flush()
                out.append(inline(line))
            else:
                paragraph.append(line)
    flush()
    return "\n".join(out)
