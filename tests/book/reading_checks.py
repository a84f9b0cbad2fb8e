"""What the chart and phone browser tests measure on a page, as JavaScript run in the page.

- :data:`CUT_TEXTS`: every SVG text of a chart drawn beyond its chart's box (the chart's
  ``div`` and its ``svg``, whichever is narrower) or shortened by Vega with an ellipsis;
- :data:`LAYOUT`: the page's height, its answer box, its key figure and its widest code block;
- :data:`LEGENDS`: each chart's legend, whether clicking its first entry changes the drawing.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable

from playwright.sync_api import TimeoutError as PlaywrightTimeout

#: Scientific notation a reader should never meet (``4.27 × 10⁻⁵``, ``1e-05``).
SCIENTIFIC = re.compile(r"\d\s*×\s*10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]|\d[eE][-+]?\d")

#: Slack for sub-pixel rounding, px.
SLACK = 1.5

#: ``[{chart, text, how}]``: texts of charts cut by their box or by Vega's ``limit``.
CUT_TEXTS = """(slack) => {
  const out = [];
  document.querySelectorAll('main .pruneaudit-chart').forEach((chart, index) => {
    const svg = chart.querySelector('svg.marks');
    if (!svg) return;
    const c = chart.getBoundingClientRect(), s = svg.getBoundingClientRect();
    const left = Math.max(c.left, s.left), top = s.top;
    const right = Math.min(c.left + chart.clientWidth, s.right), bottom = s.bottom;
    const name = `chart ${index + 1} (${chart.id})`;
    svg.querySelectorAll('text').forEach(t => {
      const label = t.textContent.trim();
      if (!label) return;
      const r = t.getBoundingClientRect();
      if (!r.width && !r.height) return;
      const sides = [];
      if (r.left < left - slack) sides.push(`left by ${Math.round(left - r.left)} px`);
      if (r.right > right + slack) sides.push(`right by ${Math.round(r.right - right)} px`);
      if (r.top < top - slack) sides.push(`top by ${Math.round(top - r.top)} px`);
      if (r.bottom > bottom + slack) sides.push(`bottom by ${Math.round(r.bottom - bottom)} px`);
      const how = 'past its box ' + sides.join(', ');
      if (sides.length) out.push({chart: name, text: label, how});
      else if (label.endsWith('\u2026')) out.push({chart: name, text: label, how: 'shortened'});
    });
  });
  return out;
}"""

#: The page's layout: heights and tops in page px.
LAYOUT = """() => {
  const at = e => e.getBoundingClientRect().top + window.scrollY;
  const box = document.querySelector('.pa-answer');
  const charts = [...document.querySelectorAll('main .pruneaudit-chart')];
  const key = document.querySelector('main .pa-key-chart') || charts[0] || null;
  const drawn = key && key.querySelector('svg.marks, canvas.marks');
  const pres = [...document.querySelectorAll('main pre')].filter(p => p.offsetParent !== null);
  const widest = pres.reduce((w, p) => Math.max(w, p.scrollWidth), 0);
  const sideways = pres.filter(p => p.scrollWidth > p.clientWidth + 1).length;
  return {
    height: document.documentElement.scrollHeight,
    answerBottom: box ? at(box) + box.getBoundingClientRect().height : null,
    keyTop: key ? at(key) : null,
    keyWidth: drawn ? drawn.getBoundingClientRect().width : null,
    keyBox: key ? key.clientWidth : null,
    keyMarked: !!document.querySelector('main .pa-key-chart'),
    widestCode: widest, codeScrolls: sideways,
    pageScrolls: document.documentElement.scrollWidth > window.innerWidth + 1,
  };
}"""

#: Charts with a legend of symbols: ``[{chart, title, changes}]`` after clicking the first
#: entry (the drawing's marks before and after, compared; a second click undoes it).
LEGEND_ENTRIES = """() => [...document.querySelectorAll('main .pruneaudit-chart')].map(
  (chart, index) => {
    const entry = chart.querySelector('svg.marks .role-legend-symbol path');
    if (!entry) return null;
    const legend = entry.closest('.role-legend');
    const title = legend.querySelector('.role-legend-title text');
    return {index, chart: `chart ${index + 1} (${chart.id})`,
            title: title ? title.textContent : ''};
  }).filter(Boolean)"""


#: A digest of the drawn marks (legends aside) of the ``i``-th chart: their markup's length and
#: a hash of it, computed in the page (a chart's markup can be megabytes).
MARKS_DIGEST = """(i) => { const svg = document.querySelectorAll('main .pruneaudit-chart')[i]
    .querySelector('svg.marks').cloneNode(true);
    svg.querySelectorAll('.role-legend').forEach(e => e.remove());
    const html = svg.innerHTML; let h = 0;
    for (let k = 0; k < html.length; k++) h = (h * 31 + html.charCodeAt(k)) | 0;
    return html.length + ':' + h; }"""


def marks_digest(page, index: int) -> str:
    """The digest of the drawn marks (legends aside) of the ``index``-th chart of ``page``."""
    return page.evaluate(MARKS_DIGEST, index)


def click_legend(page, index: int) -> None:
    """Click the first legend entry's symbol of the ``index``-th chart, as a reader would."""
    entry = page.locator("main .pruneaudit-chart").nth(index).locator(
        "svg.marks .role-legend-symbol path"
    ).first
    entry.scroll_into_view_if_needed(timeout=5_000)
    entry.click(force=True, timeout=5_000)


def legends(page, clicked: Callable[[dict], bool] = lambda legend: True) -> list[dict]:
    """Each chart's legend for which ``clicked(legend)`` holds, and whether clicking its first
    entry changed the drawing (within a second of the click). The entry stays selected: a
    second click on it keeps it so."""
    found = [legend for legend in page.evaluate(LEGEND_ENTRIES) if clicked(legend)]
    for legend in found:
        i = legend["index"]
        before = marks_digest(page, i)
        click_legend(page, i)
        try:
            page.wait_for_function(f"([i, d]) => ({MARKS_DIGEST})(i) !== d", arg=[i, before],
                                   timeout=1_000)
            legend["changes"] = True
        except PlaywrightTimeout:
            legend["changes"] = False
    return found


def cut_texts(page) -> list[dict]:
    """The chart texts of ``page`` past their chart's box or shortened, once the charts that
    needed it are drawn again (``pruneaudit.charts.fitting``)."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => ({CUT_TEXTS})({SLACK}).length === 0", timeout=4_000)
    return page.evaluate(CUT_TEXTS, SLACK)
