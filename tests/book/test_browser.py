"""The built book in headless Chromium: charts render offline, every explorer changes its view,
study pages put their findings first, no progress bar, every internal link resolves.

Uses the Chromium that ``tests/browsers.py`` finds (the setting, the system's or Playwright's).
The book is the smoke build of ``conftest.smoke_book``, or the HTML folder named by
``$PRUNEAUDIT_BOOK_HTML`` (check an existing build without rebuilding it). Tests that only read a
page share it (``conftest.shown``: each page opened once per viewport); screenshots of a build:
``docs/screenshots.py``.
"""

from __future__ import annotations

import contextlib
import html.parser
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from pruneaudit.book.paths import TEMPLATE, study_notebooks

from .conftest import DESKTOP, HOST, PHONE, VIEWPORTS, Opened, study_pages

pytestmark = pytest.mark.browser

SELECTED = ".selected_marks path"
BOUND_INPUTS = ".vega-bindings select, .vega-bindings input[type=range]"
#: tqdm bars ("12%|", "3.2it/s", "model-epochs/s") and kernel warnings must not reach a page.
NOISE = re.compile(r"\d%\||\bit/s\b|\d\s*s/it\b|model-epochs/s|Kernel is running over TCP")
#: The study pages (the template is not a study): one per study notebook in nbs/.
STUDIES = study_notebooks()


def rendered_charts(page) -> int:
    """Number of chart divs that hold a drawn Vega view (svg or canvas)."""
    page.wait_for_function(
        "document.querySelectorAll('.pruneaudit-chart').length === 0 || "
        "[...document.querySelectorAll('.pruneaudit-chart')].some("
        "d => d.querySelector('svg.marks, canvas.marks'))",
        timeout=15_000,
    )
    return page.locator(".pruneaudit-chart").filter(has=page.locator("svg, canvas")).count()


def selected_marks(page) -> list[str]:
    """Positions of the marks in each chart's ``selected`` layer (see pruneaudit.charts)."""
    return page.eval_on_selector_all(
        SELECTED, "els => els.map(e => e.getAttribute('transform') || e.getAttribute('d'))"
    )


def set_input(page, selector: str, index: int, value: str) -> None:
    """Set the ``index``-th input of ``selector`` to ``value`` as a user would (its input and
    change events)."""
    page.locator(selector).nth(index).evaluate(
        """(el, v) => { el.value = v;
            el.dispatchEvent(new Event('input', {bubbles: true}));
            el.dispatchEvent(new Event('change', {bubbles: true})); }""",
        value,
    )


def move_slider(page, index: int = 0, fraction: float = 0.75) -> None:
    """Set the ``index``-th Vega range input to ``fraction`` of its range, as a user would."""
    slider = page.locator(".vega-bindings input[type=range]").nth(index)
    slider.evaluate(
        """(el, f) => {
            const lo = +el.min, hi = +el.max;
            el.value = String(lo + f * (hi - lo));
            el.dispatchEvent(new Event('input', {bubbles: true}));
            el.dispatchEvent(new Event('change', {bubbles: true}));
        }""",
        fraction,
    )
    page.wait_for_timeout(300)


def check_slider_moves_selection(page, index: int = 0) -> None:
    """Moving the slider changes the selected point(s); moving it back restores them. The
    slider is left at the value it had."""
    original = page.locator(".vega-bindings input[type=range]").nth(index).input_value()
    move_slider(page, index, 0.0)
    before = selected_marks(page)
    move_slider(page, index, 1.0)
    after = selected_marks(page)
    assert before and after, "no marks in a 'selected' layer"
    assert before != after, "moving the slider did not move the selected point"
    move_slider(page, index, 0.0)
    assert selected_marks(page) == before
    set_input(page, ".vega-bindings input[type=range]", index, original)
    page.wait_for_timeout(300)


def test_pages_render_offline(shown, book_html: Path) -> None:
    pages = ["index.html", "book/reproducing.html", "book/workshop.html", *study_pages(book_html)]
    assert any(p.startswith("book/studies/") for p in pages)
    for path in pages:
        log = shown(path, DESKTOP)
        charts = rendered_charts(log.page)
        if path.startswith("book/studies/"):
            assert charts >= 1, f"{path}: no Vega chart rendered"
        assert not log.errors, f"{path}: console errors {log.errors}"
        assert not log.foreign, f"{path}: requests to other hosts {log.foreign}"


def test_requests_to_other_hosts_are_recorded_and_fail(browser) -> None:
    """The offline check itself: a page's script and image from other hosts are recorded and
    never load; the page's own server is not blocked (every page check loads from it)."""
    log = Opened(browser, f"http://{HOST}:9", DESKTOP)
    try:
        log.page.set_content(
            '<img src="https://cdn.example.org/i.png">'
            '<script src="http://example.com/a.js" onerror="window.failed = true"></script>',
            wait_until="load",
        )
        assert sorted(log.foreign) == ["http://example.com/a.js", "https://cdn.example.org/i.png"]
        assert log.page.evaluate("window.failed === true")
    finally:
        log.close()


def test_mathjax_renders_locally(shown) -> None:
    log = shown("book/studies/00_template.html", DESKTOP)
    log.page.wait_for_selector("mjx-container", timeout=15_000)
    assert not log.foreign and not log.errors


@pytest.mark.parametrize("page_name", ["00_template", "03_pareto_selection"])
def test_slider_moves_selected_point(shown, book_html: Path, page_name: str) -> None:
    """On the page group's open desktop page, which it leaves as found."""
    path = f"book/studies/{page_name}.html"
    if not (book_html / path).exists():
        pytest.skip(f"{path} is not in the book yet")
    log = shown(path, DESKTOP)
    assert rendered_charts(log.page) >= 1
    index = 0
    if page_name == "03_pareto_selection":
        index = log.page.locator(".vega-bindings input[type=range]").evaluate_all(
            "els => els.findIndex(e => e.closest('.vega-bindings')"
            ".textContent.includes('fairness weight'))"
        )
        assert index >= 0, "no fairness-weight slider on the Pareto page"
    check_slider_moves_selection(log.page, index)
    assert not log.errors and not log.foreign


# ---------------------------------------------------------------------------------------------
# Explorers: every input bound to a chart parameter changes the drawing


def _chart_drawing(page, index: int) -> str:
    """The drawn marks of the chart that holds the ``index``-th bound input."""
    return (
        page.locator(BOUND_INPUTS)
        .nth(index)
        .evaluate(
            """el => {
            const chart = el.closest('.pruneaudit-chart') || el.closest('.vega-embed');
            const drawn = chart && chart.querySelector('svg.marks, canvas.marks');
            if (!drawn) return '';
            return drawn.tagName === 'CANVAS' ? drawn.toDataURL() : drawn.innerHTML;
        }"""
        )
    )


def _drive(page, index: int) -> str:
    """Pick another option of a drop-down, or slide a range to its other end; return what the
    input now shows."""
    return (
        page.locator(BOUND_INPUTS)
        .nth(index)
        .evaluate(
            """el => {
            if (el.tagName === 'SELECT') {
                el.selectedIndex = (el.selectedIndex + 1) % el.options.length;
            } else {
                const lo = +el.min, hi = +el.max, v = +el.value;
                el.value = String(Math.abs(v - lo) > Math.abs(hi - v) ? lo : hi);
            }
            el.dispatchEvent(new Event('input', {bubbles: true}));
            el.dispatchEvent(new Event('change', {bubbles: true}));
            return el.value;
        }"""
        )
    )


def _wait_for_change(page, index: int, before: str, timeout_ms: int = 5_000) -> str:
    """The drawing of the ``index``-th bound input's chart once it differs from ``before``, or
    after ``timeout_ms``."""
    waited = 0
    drawing = _chart_drawing(page, index)
    while drawing == before and waited < timeout_ms:
        page.wait_for_timeout(100)
        waited += 100
        drawing = _chart_drawing(page, index)
    return drawing


@pytest.mark.parametrize("stem", STUDIES)
def test_every_explorer_changes_its_chart(shown, book_html: Path, stem: str) -> None:
    """Each study page has at least one chart input (drop-down or slider) and driving each one
    redraws its chart; no request leaves the machine. On the page group's open desktop page, whose
    inputs it sets back (the SVG drawn then is not always the same text as before, so it is not
    compared)."""
    found = [p for p in study_pages(book_html) if Path(p).name.startswith(stem)]
    if not found:
        pytest.skip(f"no study page {stem}* in this build")
    (path,) = found
    log = shown(path, DESKTOP)
    page = log.page
    rendered_charts(page)
    inputs = page.locator(BOUND_INPUTS)
    assert inputs.count() >= 1, f"{path}: no explorer (no drop-down or slider bound to a chart)"
    unchanged = []
    for index in range(inputs.count()):
        before = _chart_drawing(page, index)
        assert before, f"{path}: input {index} is not in a drawn chart"
        if inputs.nth(index).evaluate(
            "el => el.tagName === 'SELECT' ? el.options.length < 2 : +el.min === +el.max"
        ):
            continue  # a single option: nothing to drive
        original = inputs.nth(index).input_value()
        label = inputs.nth(index).evaluate("el => el.closest('.vega-bind').textContent.trim()")
        driven = _drive(page, index)
        if _wait_for_change(page, index, before) == before:
            unchanged.append(f"{label!r} -> {driven}")
        set_input(page, BOUND_INPUTS, index, original)
        page.wait_for_timeout(300)
    assert not unchanged, f"{path}: driving these inputs did not change the chart: {unchanged}"
    assert not log.errors, f"{path}: console errors {log.errors}"
    assert not log.foreign, f"{path}: requests to other hosts {log.foreign}"


# ---------------------------------------------------------------------------------------------
# Page structure: findings first, no progress bars, links that resolve


def _cells(page) -> list[dict]:
    """Each code cell in page order: whether its source is shown, whether it shows the findings
    table (a table captioned "Findings..." or with columns finding and verdict)."""
    return page.eval_on_selector_all(
        "div.cell",
        """cells => cells.map(c => {
            const input = c.querySelector('.cell_input');
            const shown = !!input && !input.closest('details:not([open])') &&
                          input.checkVisibility();
            const findings = [...c.querySelectorAll('.cell_output table')].some(t => {
                if (t.classList.contains('pa-findings-table')) return true;
                const cap = t.querySelector('caption');
                const heads = [...t.querySelectorAll('th')].map(h => h.textContent.trim());
                return (cap && /^findings/i.test(cap.textContent.trim())) ||
                       (heads.includes('finding') && heads.includes('verdict'));
            });
            return {shown, findings};
        })""",
    )


@pytest.mark.parametrize("stem", (TEMPLATE, *STUDIES))
def test_findings_table_comes_before_visible_code(shown, book_html: Path, stem: str) -> None:
    """The findings table is shown by the first code cell whose source is not folded, or by a
    folded cell before it: a reader meets the results before any code."""
    found = [p for p in study_pages(book_html) if Path(p).name.startswith(stem)]
    if not found:
        pytest.skip(f"no study page {stem}* in this build")
    (path,) = found
    cells = _cells(shown(path, DESKTOP).page)
    with_findings = [i for i, c in enumerate(cells) if c["findings"]]
    assert with_findings, f"{path}: no findings table (page.show_findings) on the page"
    shown = [i for i, c in enumerate(cells) if c["shown"]]
    if shown:
        assert with_findings[0] <= shown[0], (
            f"{path}: code cell {shown[0]} is unfolded before the findings table "
            f"(cell {with_findings[0]}); fold it (hide-input / hide-cell) or move it below"
        )


FILE_NAME = re.compile(r"\b[\w.-]+\.(?:txt|csv|json|py|ipynb|ya?ml|parquet|md)\b")


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_findings_tables_fit_and_pages_name_no_files(
    shown, book_html: Path, viewport: tuple[int, int]
) -> None:
    """Every study page's findings table fits its container (no horizontal scroll) at a desktop
    and a phone width, and no file name appears in the page's visible text (code aside)."""
    problems = []
    for path in study_pages(book_html):
        page = shown(path, viewport).page
        tables = page.eval_on_selector_all(
            "table.pa-findings-table",
            "ts => ts.map(t => [t.scrollWidth, t.parentElement.clientWidth])",
        )
        if not tables and not Path(path).name.startswith("00_"):
            problems.append(f"{path}: no findings table")
        problems += [f"{path}: table {w} px in {c} px" for w, c in tables if w > c]
        text = page.evaluate(
            """() => { const main = document.querySelector('main') || document.body;
                const copy = main.cloneNode(true);
                copy.querySelectorAll('.cell_input, pre, code, script, style')
                    .forEach(e => e.remove());
                return copy.innerText; }"""
        )
        problems += [f"{path}: file name {m!r}" for m in set(FILE_NAME.findall(text))]
    assert not problems, problems


def test_no_progress_bar_or_kernel_warning_in_outputs(book_html: Path) -> None:
    """No cell output of any page (folded or not) holds a tqdm bar or a kernel warning."""
    bad = {}
    for page in sorted((book_html / "book").rglob("*.html")):
        for output in re.findall(
            r'<div class="cell_output[^"]*".*?(?=<div class="cell[ "]|</article>|\Z)',
            page.read_text(),
            flags=re.S,
        ):
            hits = NOISE.findall(re.sub(r"<[^>]+>", "", output))
            if hits:
                bad[page.relative_to(book_html).as_posix()] = hits[:3]
    assert not bad, f"progress bars or kernel warnings in rendered outputs: {bad}"


class _Anchors(html.parser.HTMLParser):
    """Collects ``href`` of links and every ``id``/``name`` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key):
                self.ids.add(values[key])  # type: ignore[arg-type]
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"])  # type: ignore[arg-type]


def _parse(path: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(path.read_text())
    return parser


def internal_link_problems(root: Path, pages: list[Path]) -> list[str]:
    """Links of ``pages`` to files of the book that are missing, or to anchors that are not there
    (links to other hosts, ``mailto:`` and bare ``#`` are not checked)."""
    problems = []
    parsed: dict[Path, _Anchors] = {}

    def anchors(path: Path) -> _Anchors:  # each page parsed once
        if path not in parsed:
            parsed[path] = _parse(path)
        return parsed[path]

    for page in pages:
        base = "http://book.invalid/" + page.relative_to(root).as_posix()
        for href in anchors(page).hrefs:
            if href.startswith(("mailto:", "javascript:")) or href in ("#", ""):
                continue
            url = urlparse(urljoin(base, href))
            if url.hostname != "book.invalid":
                continue
            target = root / unquote(url.path.lstrip("/"))
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(root)}: {href}"
            if not target.is_file():
                problems.append(f"{where} (no file {target.relative_to(root)})")
            elif (
                url.fragment
                and target.suffix == ".html"
                and unquote(url.fragment) not in anchors(target).ids
            ):
                problems.append(f"{where} (no anchor #{url.fragment})")
    return problems


def test_internal_links_resolve(book_html: Path) -> None:
    """Every link of every study page, the intro and the book's own pages resolves."""
    pages = [book_html / "index.html", *sorted((book_html / "book").rglob("*.html"))]
    assert any("studies" in p.parts for p in pages)
    problems = internal_link_problems(book_html, pages)
    assert not problems, "broken internal links:\n" + "\n".join(problems)


def test_link_checker_finds_broken_links(tmp_path: Path) -> None:
    (tmp_path / "book").mkdir()
    (tmp_path / "index.html").write_text('<a href="book/a.html#x">a</a><a href="#">top</a>')
    (tmp_path / "book" / "a.html").write_text(
        '<h1 id="x">A</h1><a href="../index.html">home</a><a href="b.html">b</a>'
        '<a href="../index.html#nope">n</a><a href="https://arxiv.org/abs/1">paper</a>'
    )
    problems = internal_link_problems(tmp_path, sorted(tmp_path.rglob("*.html")))
    assert problems == [
        "book/a.html: b.html (no file book/b.html)",
        "book/a.html: ../index.html#nope (no anchor #nope)",
    ]


def test_noise_pattern() -> None:
    assert NOISE.search("train: 40%|████      | 2/5 [00:01<00:02, 1.3it/s]")
    assert NOISE.search("0.0/2 [00:00<?, ?model-epochs/s]")
    assert NOISE.search("[IPKernelApp] WARNING | Kernel is running over TCP without encryption")
    assert not NOISE.search("accuracy 97.5% | sparsity 90.0% (it is small)")


# ---------------------------------------------------------------------------------------------
# The first screen: the whole answer at a desktop width, its first finding on a phone; charts
# and tables that fit a phone; a front page of about one screen per study

#: The front page's height budget per study at the desktop width, in screens.
FRONT_SCREENS_PER_STUDY = 1.5
#: Where a page's answer box and its first finding are (page coordinates, px; None: no box).
ANSWER_BOX = """() => {
    const box = document.querySelector('.pa-answer');
    if (!box) return null;
    const at = e => e.getBoundingClientRect().top + window.scrollY;
    const first = box.querySelector('li') || box.querySelector('p:not(.admonition-title)');
    return {top: at(box), bottom: at(box) + box.getBoundingClientRect().height,
            first: first ? at(first) : null, boxes: document.querySelectorAll('.pa-answer').length};
}"""
#: Each chart or table wider than its box: the chart's drawing (its svg or canvas) against the
#: chart's box, a table against its scrolling box or its parent.
TOO_WIDE = """() => [...document.querySelectorAll('main .pruneaudit-chart, main table')].map(e => {
    const chart = e.classList.contains('pruneaudit-chart');
    const drawn = chart ? e.querySelector('svg.marks, canvas.marks') : e;
    const box = chart ? e : (e.closest('.pa-table-scroll') || e.parentElement);
    if (!drawn) return null;
    const wide = Math.max(drawn.scrollWidth, drawn.getBoundingClientRect().width);
    const name = chart ? 'chart ' + e.id :
        'table ' + ((e.caption && e.caption.textContent.trim().slice(0, 40)) || e.className);
    return wide > box.clientWidth + 1
        ? `${name}: ${Math.round(wide)} px in ${box.clientWidth}` : null;
}).filter(Boolean)"""


def _study_paths(book_html: Path) -> list[str]:
    paths = [p for p in study_pages(book_html) if not Path(p).name.startswith(TEMPLATE)]
    assert paths, "no study page in this build"
    return paths


def answer_problems(path: str, box: dict | None, viewport: tuple[int, int]) -> list[str]:
    """What keeps a page's answer off its first screen: at the desktop width the whole box
    must end inside it, on a phone its first finding must start inside it."""
    if box is None or box["boxes"] != 1:
        return [f"{path}: {0 if box is None else box['boxes']} answer boxes (want one)"]
    width, height = viewport
    if width >= DESKTOP[0] and box["bottom"] > height:
        return [f"{path} at {width} px: the answer box ends at {box['bottom']:.0f} px "
                f"(top {box['top']:.0f} px), below the first {height} px"]
    if width < DESKTOP[0] and (box["first"] is None or box["first"] > height):
        return [f"{path} at {width} px: the first finding starts at {box['first']} px, "
                f"below the first {height} px"]
    return []


def test_answer_problems_names_each_miss() -> None:
    fits = {"top": 200.0, "bottom": 880.0, "first": 300.0, "boxes": 1}
    assert answer_problems("a", fits, DESKTOP) == []
    assert answer_problems("a", {**fits, "bottom": 901.0}, DESKTOP) == [
        "a at 1400 px: the answer box ends at 901 px (top 200 px), below the first 900 px"]
    assert answer_problems("a", {**fits, "bottom": 2000.0}, PHONE) == []
    assert answer_problems("a", {**fits, "first": 845.0}, PHONE) == [
        "a at 390 px: the first finding starts at 845.0 px, below the first 844 px"]
    assert answer_problems("a", None, PHONE) == ["a: 0 answer boxes (want one)"]


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_answer_on_the_first_screen(shown, book_html: Path, viewport: tuple[int, int]) -> None:
    """At 1400 x 900 every study page's whole answer box is on the first screen; at 390 x 844
    its first finding starts on it; the one-line question follows the box."""
    problems = []
    for path in _study_paths(book_html):
        page = shown(path, viewport).page
        box = page.evaluate(ANSWER_BOX)
        question_after = page.evaluate(
            """() => { const box = document.querySelector('.pa-answer');
                const q = [...document.querySelectorAll('main p')].find(
                    p => /^Question\\b/.test(p.innerText.trim()));
                return !!(box && q && (box.compareDocumentPosition(q) &
                                       Node.DOCUMENT_POSITION_FOLLOWING)); }"""
        )
        problems += answer_problems(path, box, viewport)
        if not question_after:
            problems.append(f"{path}: no one-line question after the answer box")
    assert not problems, "\n".join(problems)


def test_charts_and_tables_fit_a_phone(shown, book_html: Path) -> None:
    """At 390 px no chart is drawn wider than its box and no table is wider than its box
    (wide tables become stacked cards), on the front page and every study page."""
    problems = []
    for path in ["index.html", *_study_paths(book_html)]:
        page = shown(path, PHONE).page
        with contextlib.suppress(PlaywrightTimeout):  # the last drawings and cards settle
            page.wait_for_function(f"() => ({TOO_WIDE})().length === 0", timeout=5_000)
        problems += [f"{path}: {p}" for p in page.evaluate(TOO_WIDE)]
    assert not problems, "wider than their box at 390 px:\n" + "\n".join(problems)


def test_front_page_reads_in_about_a_screen_per_study(shown, book_html: Path) -> None:
    """At 1400 x 900 the front page is at most 1.5 screens tall per study, and its summary has
    one line per study: the study and its question, the plain answer, how sure we are."""
    studies = len(_study_paths(book_html))
    page = shown("index.html", DESKTOP).page
    height = page.evaluate("() => document.documentElement.scrollHeight")
    heads = page.eval_on_selector_all(
        ".pa-summary table th", "hs => hs.map(h => h.textContent.trim())"
    )
    rows = page.locator(".pa-summary table tbody tr").count()
    budget = FRONT_SCREENS_PER_STUDY * DESKTOP[1] * studies
    assert height <= budget, f"front page {height} px, over {budget:.0f} px ({studies} studies)"
    assert heads == ["Study", "The answer here", "How sure"]
    assert rows == studies


# ---------------------------------------------------------------------------------------------
# What a reader reads: short headline sentences that never call an open question firm, no raw
# float or model term in the visible text, no interval of a bounded quantity past its bound

#: Most words a headline sentence of the answer box may have.
MOST_WORDS = 30
#: The visible text of the page's main column, without code (cell inputs, literal blocks) and
#: without links to arXiv papers (their ids, ``2009.09936``, read like raw floats).
VISIBLE_TEXT = """() => {
    const main = document.querySelector('main').cloneNode(true);
    main.querySelectorAll('pre, code, .cell_input, script, style, a[href*="arxiv.org"]')
        .forEach(e => e.remove());
    document.body.appendChild(main);
    const text = main.innerText;
    main.remove();
    return text;
}"""
#: A relative change or share in %, followed by its interval: ``−78% [−113, −43]``.
PERCENT_INTERVAL = re.compile(r"([−-]?\d+(?:\.\d+)?)\s?%\s*\[([−-]?\d+(?:\.\d+)?)%?,\s*")
UNDECIDED = re.compile(r"can.t tell|cannot tell|too few units", re.IGNORECASE)


def sentence_problems(sentence: str) -> list[str]:
    """What is wrong with one headline sentence: too long, or "firm" beside an open question."""
    problems = []
    words = len(sentence.split())
    if words > MOST_WORDS:
        problems.append(f"{words} words (at most {MOST_WORDS}): {sentence}")
    if re.search(r"\bfirm\b", sentence, re.IGNORECASE) and UNDECIDED.search(sentence):
        problems.append(f"'firm' beside an open question: {sentence}")
    return problems


def text_problems(text: str) -> list[str]:
    """Raw floats, model terms as statsmodels writes them, and percent intervals whose low end
    is below -100% (a relative drop or share cannot be), in a page's visible text."""
    from pruneaudit.charts.format import MODEL_TERM, RAW_FLOAT

    problems = [f"raw float {m.group(0)!r}" for m in RAW_FLOAT.finditer(text)]
    problems += [f"model term {m.group(0)!r}" for m in MODEL_TERM.finditer(text)]
    for m in PERCENT_INTERVAL.finditer(text):
        low = float(m.group(2).replace("−", "-"))
        if low < -100:
            problems.append(f"interval below -100%: {m.group(0)!r}")
    return problems


def test_sentence_and_text_problems_name_each_miss() -> None:
    assert sentence_problems("D2.1 accuracy falls: the effect is there. A replication "
                             "would agree.") == []
    assert len(sentence_problems(" ".join(["word"] * 31))) == 1
    assert sentence_problems("We cannot tell whether the effect is there (firm).") == [
        "'firm' beside an open question: We cannot tell whether the effect is there (firm)."]
    assert text_problems("ours −3.8 pts [−9.0, 1.4], adjusted R² 0.61") == []
    assert text_problems("9.0000 and 0.09034") == ["raw float '9.0000'", "raw float '0.09034'"]
    assert text_problems("term np.exp(sparsity):accuracy0") == [
        "model term 'np.exp(sparsity):accuracy0'"]
    assert text_problems("−78% [−113, −43]") == ["interval below -100%: '−78% [−113, '"]
    assert text_problems("−78% [−96, −43]") == []


def test_pages_read_as_sentences_without_raw_numbers(shown, book_html: Path) -> None:
    """On the front page and every study page: each headline sentence has at most 30 words and
    never pairs "firm" with an open question; the visible text holds no raw float, no model
    term as statsmodels writes it and no percent interval below -100%."""
    problems = []
    for path in ["index.html", *_study_paths(book_html)]:
        page = shown(path, DESKTOP).page
        sentences = page.eval_on_selector_all(  # the front page's cells: one a line
            ".pa-answer .pa-sentence, .pa-summary tbody td:nth-child(2)",
            "es => es.flatMap(e => e.innerText.split('\\n'))"
            ".map(s => s.trim()).filter(Boolean)",
        )
        text = page.evaluate(VISIBLE_TEXT)
        if path != "index.html" and not sentences:
            problems.append(f"{path}: no headline sentence in the answer box")
        problems += [f"{path}: {p}" for s in sentences for p in sentence_problems(s)]
        problems += [f"{path}: {p}" for p in text_problems(text)]
    assert not problems, "\n".join(problems)
