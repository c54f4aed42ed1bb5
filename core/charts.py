"""Bar charts as server-rendered SVG: no script, readable by a screen reader.

Each chart is an ``<svg role="img">`` named by its ``<title>`` and described by its ``<desc>``;
every bar carries its number as text beside it and a ``<title>`` of its own, and a legend names
the series in words, so nothing depends on telling colours apart. The page shows the same
numbers in a table (the accessible alternative). Text is escaped here: labels come from
definitions and queue names.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

COLOURS = ("#1351b4", "#8a5a00", "#b00020", "#155724")
"""Series fills (contrast ≥ 3:1 on white, WCAG 1.4.11)."""
LABEL_W = 230
BAR_W = 360
VALUE_W = 60
BAR_H = 16
GAP = 14
LEGEND_H = 28
MAX_LABEL = 26


def _short(label: str) -> str:
    return label if len(label) <= MAX_LABEL else label[: MAX_LABEL - 1] + "…"


def bar_chart(
    *,
    chart_id: str,
    title: str,
    desc: str,
    categories: Sequence[str],
    series: Sequence[str],
    values: Sequence[Sequence[int]],
    texts: Sequence[Sequence[str]] | None = None,
) -> Markup:
    """Horizontal grouped bars: one group per category, one bar per series.

    ``values[c][s]`` is category ``c``'s number for series ``s``; bars share one scale.
    ``texts[c][s]``, when given, is what is written for it instead of the number (a public
    page writes ``<5`` for a suppressed count, whose bar it draws empty).
    """
    top = max((v for row in values for v in row), default=0) or 1
    group_h = len(series) * BAR_H + GAP
    height = LEGEND_H + len(categories) * group_h + GAP
    width = LABEL_W + BAR_W + VALUE_W
    t_id, d_id = f"{chart_id}-title", f"{chart_id}-desc"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(chart_id)}" '
        f'role="img" aria-labelledby="{escape(t_id)} {escape(d_id)}" '
        f'viewBox="0 0 {width} {height}" width="100%" preserveAspectRatio="xMinYMin meet">',
        f'<title id="{escape(t_id)}">{escape(title)}</title>',
        f'<desc id="{escape(d_id)}">{escape(desc)}</desc>',
    ]
    x = 0
    for s, name in enumerate(series):
        colour = COLOURS[s % len(COLOURS)]
        parts.append(f'<rect x="{x}" y="6" width="12" height="12" fill="{colour}"/>')
        parts.append(f'<text x="{x + 16}" y="16" font-size="12">{escape(name)}</text>')
        x += 20 + 8 * len(name)
    for c, category in enumerate(categories):
        y0 = LEGEND_H + c * group_h
        mid = y0 + len(series) * BAR_H / 2 + 4
        parts.append(
            f'<text x="0" y="{mid:.0f}" font-size="13" font-weight="600">'
            f"<title>{escape(category)}</title>{escape(_short(category))}</text>"
        )
        for s, name in enumerate(series):
            value = values[c][s]
            text = str(value) if texts is None else texts[c][s]
            y = y0 + s * BAR_H
            w = round(BAR_W * value / top)
            colour = COLOURS[s % len(COLOURS)]
            parts.append(
                f'<rect x="{LABEL_W}" y="{y + 2}" width="{w}" height="{BAR_H - 4}" '
                f'fill="{colour}"><title>{escape(category)} — {escape(name)}: '
                f"{escape(text)}</title></rect>"
            )
            parts.append(
                f'<text x="{LABEL_W + w + 4}" y="{y + BAR_H - 4}" font-size="12">'
                f"{escape(text)}</text>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))
