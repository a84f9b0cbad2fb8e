"""The book's one palette and text sizes: every chart reads its colours and fonts from here.

Colours are Okabe-Ito's eight (Okabe & Ito 2008, "Color Universal Design"), safe under the
common colour-vision deficiencies, and two greys (:data:`GREYS`) for the ninth and tenth digit
class, which Okabe-Ito lacks; digit classes also get a shape each (:data:`CLASS_SHAPES`), so that
no class is told by colour alone. Under a simulated deuteranopia, protanopia or tritanopia
(Machado et al. 2009) every two of the ten class colours stay at least 14 CIELAB units apart
(``tests/chart_style.py``); Vega's default ``category10`` falls to 4.6.

One meaning, one colour, across the book: each group below fixes the colour of every value it
knows (a digit class, a kind of compression, a population, a writer series...), so that a value
keeps its colour from chart to chart. Groups are separate meanings: with ten colours for twenty
or so named values, a colour may mean a digit class in one chart and a kind of compression in
another, never two things in one chart. Quantities use one sequential scheme
(:data:`SEQUENTIAL`) or, for values of both signs, one diverging scheme centred on 0
(:data:`DIVERGING`), both readable under those deficiencies.

No Altair here (:func:`scale` returns a plain Vega-Lite scale), so a study's ``run`` may read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: Okabe-Ito's eight colours, by their names.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
}
#: The two greys that extend Okabe-Ito to ten colours.
GREYS: dict[str, str] = {"dark grey": "#666666", "light grey": "#BBBBBB"}
_C = {**OKABE_ITO, **GREYS}
#: Every colour a chart of the book may use.
PALETTE: tuple[str, ...] = tuple(_C.values())

#: Digit class ``c``'s colour is ``CLASSES[c]`` in every chart (classes 2 and 4: sky blue and
#: vermillion, far apart under every simulated deficiency).
CLASSES: tuple[str, ...] = tuple(_C[name] for name in (
    "black", "orange", "sky blue", "bluish green", "vermillion", "blue", "yellow",
    "reddish purple", "dark grey", "light grey"))
#: Digit class ``c``'s point shape (Vega's shape names).
CLASS_SHAPES: tuple[str, ...] = (
    "circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right",
    "triangle-left", "wedge", "arrow")
#: Kinds of compression (and the dense reference they are compared with).
KINDS: dict[str, str] = {"dense": _C["blue"], "pruning": _C["vermillion"],
                         "quantization": _C["bluish green"]}
#: Pruned populations, from the sparsest down: the sparsest has the pruning colour, the next
#: reddish purple (vermillion and orange are close under deuteranopia).
PRUNED_LEVELS: tuple[str, ...] = (_C["vermillion"], _C["reddish purple"], _C["orange"],
                                  _C["yellow"])
#: Quantized populations, by scheme name in order: the first has the quantization colour.
QUANTIZED: tuple[str, ...] = (_C["bluish green"], _C["sky blue"])
#: QMNIST writer series: the two NIST-employee series in blues, the high-school one apart.
SERIES: dict[str, str] = {"hsf0": _C["sky blue"], "hsf1": _C["blue"], "hsf4": _C["vermillion"],
                          "all": _C["black"]}
#: Our estimate beside a paper's printed value.
SOURCES: dict[str, str] = {"ours": _C["black"], "paper": _C["orange"]}
#: A clean test set beside a corrupted one.
TEST_SETS: dict[str, str] = {"clean": _C["blue"], "corrupted": _C["orange"]}
#: Verdicts of a finding (``pruneaudit.audit.rules``), for a view that colours them.
VERDICTS: dict[str, str] = {
    "reproduced": _C["bluish green"], "present": _C["bluish green"],
    "same direction": _C["bluish green"], "same direction, smaller": _C["sky blue"],
    "same direction, larger": _C["sky blue"], "same direction, size can't tell": _C["sky blue"],
    "inconclusive": _C["light grey"], "not testable here": _C["dark grey"],
    "not comparable here": _C["dark grey"], "not reproduced": _C["vermillion"],
    "opposite": _C["vermillion"], "absent": _C["vermillion"], "other sign": _C["vermillion"],
}
#: Any other categories (techniques, configurations), by their sorted names.
CATEGORIES: tuple[str, ...] = tuple(_C[name] for name in (
    "blue", "orange", "bluish green", "vermillion", "reddish purple", "sky blue", "yellow",
    "black", "dark grey", "light grey"))
#: Marks that annotate a chart (a Pareto frontier, a pick) and reference lines (y = x, 0).
ANNOTATION = _C["black"]
REFERENCE = _C["dark grey"]
#: Vega's schemes for quantities: sequential, and diverging around 0 (values of both signs).
SEQUENTIAL = "viridis"
DIVERGING = "blueorange"
SCHEMES = frozenset({SEQUENTIAL, DIVERGING})

#: The field names whose colour means each group (a view names its columns accordingly).
MEANINGS: dict[str, str] = {
    "class": "class", "class_name": "class", "digit": "class", "label": "class",
    "kind": "kind",
    "variant": "population", "level_name": "population", "population": "population",
    "series": "series",
    "source": "source",
    "test set": "test set",
    "verdict": "verdict",
}
_PRUNED = re.compile(r"^pruned (\d+(?:\.\d+)?)%$")
_DIGIT = re.compile(r"(\d+)$")

#: Text sizes, px: nothing in a chart is smaller than :data:`MIN_FONT`.
MIN_FONT = 12
TITLE_FONT = 15
AXIS_TITLE_FONT = 13

#: The book's Vega-Lite ``config`` (the Altair theme ``pruneaudit``): text sizes and the
#: palette as every scale's default.
CONFIG: dict = {
    "title": {"fontSize": TITLE_FONT, "subtitleFontSize": MIN_FONT + 1, "anchor": "start"},
    "axis": {"labelFontSize": MIN_FONT, "titleFontSize": AXIS_TITLE_FONT, "labelLimit": 260},
    "legend": {"labelFontSize": MIN_FONT, "titleFontSize": AXIS_TITLE_FONT, "labelLimit": 320,
               "titleLimit": 420},
    "header": {"labelFontSize": AXIS_TITLE_FONT, "titleFontSize": AXIS_TITLE_FONT},
    "text": {"fontSize": MIN_FONT},
    "mark": {"fontSize": MIN_FONT, "color": _C["blue"]},
    "range": {"category": list(CATEGORIES), "ordinal": {"scheme": SEQUENTIAL},
              "ramp": {"scheme": SEQUENTIAL}, "heatmap": {"scheme": SEQUENTIAL},
              "diverging": {"scheme": DIVERGING}},
}


def _classes(values: list[str]) -> list[str]:
    """Class ``c`` (a value ending in its digit: ``"3"``, ``"digit 3"``) gets ``CLASSES[c]``;
    classes without a digit get them by their sorted order."""
    digits = [_DIGIT.search(v) for v in values]
    if all(digits):
        return [CLASSES[int(d.group(1)) % len(CLASSES)] for d in digits]  # type: ignore[union-attr]
    order = sorted(values)
    return [CLASSES[order.index(v) % len(CLASSES)] for v in values]


def _populations(values: list[str]) -> list[str]:
    """``dense``, pruned levels (the sparsest first in :data:`PRUNED_LEVELS`) and quantization
    schemes (by name in :data:`QUANTIZED`)."""
    pruned = sorted((float(m.group(1)) for v in values if (m := _PRUNED.match(v))), reverse=True)
    schemes = sorted(v for v in values if v != "dense" and not _PRUNED.match(v))
    out = []
    for v in values:
        if v == "dense":
            out.append(KINDS["dense"])
        elif m := _PRUNED.match(v):
            out.append(PRUNED_LEVELS[pruned.index(float(m.group(1))) % len(PRUNED_LEVELS)])
        else:
            out.append(QUANTIZED[schemes.index(v) % len(QUANTIZED)])
    return out


def _fixed(table: Mapping[str, str], values: list[str], key=lambda v: v) -> list[str]:
    """Colours of ``values`` from ``table`` (by ``key(value)``); unknown values take the
    :data:`CATEGORIES` colours that ``table`` leaves free, by their sorted order."""
    free = [c for c in CATEGORIES if c not in table.values()] or list(CATEGORIES)
    unknown = sorted(v for v in values if key(v) not in table)
    return [table[key(v)] if key(v) in table else free[unknown.index(v) % len(free)]
            for v in values]


def colours(field: str, values: Iterable[object]) -> dict[str, str]:
    """The colour of each of ``values`` (as text) of a field whose meaning :data:`MEANINGS`
    gives; any other field's values get :data:`CATEGORIES` by their sorted order."""
    shown = [str(v) for v in dict.fromkeys(values)]
    meaning = MEANINGS.get(field)
    if meaning == "class":
        range_ = _classes(shown)
    elif meaning == "population":
        range_ = _populations(shown)
    elif meaning == "kind":
        range_ = _fixed(KINDS, shown, lambda v: {"pruned": "pruning",
                                                 "quantized": "quantization"}.get(v, v))
    elif meaning == "series":
        range_ = _fixed(SERIES, shown, lambda v: "all" if v.startswith("all") else v)
    elif meaning == "source":
        range_ = _fixed(SOURCES, shown, lambda v: "ours" if v == "ours" else "paper")
    elif meaning == "test set":
        range_ = _fixed(TEST_SETS, shown)
    elif meaning == "verdict":
        range_ = _fixed(VERDICTS, shown)
    else:
        order = sorted(shown)
        range_ = [CATEGORIES[order.index(v) % len(CATEGORIES)] for v in shown]
    return dict(zip(shown, range_, strict=True))


def _order(field: str, value: str) -> tuple:
    """Where ``value`` stands in a legend: classes by digit, populations dense first and pruned
    ones by level, anything else by name."""
    meaning = MEANINGS.get(field)
    if meaning == "class" and (digit := _DIGIT.search(value)):
        return (0, int(digit.group(1)), value)
    if meaning == "population":
        pruned = _PRUNED.match(value)
        return (value != "dense", not pruned, float(pruned.group(1)) if pruned else 0.0, value)
    return (0, 0, value)


def scale(field: str, values: Iterable[object]) -> dict[str, list[str]]:
    """A Vega-Lite scale (``domain``, ``range``) giving ``values`` their :func:`colours`."""
    domain = sorted((getattr(v, "item", lambda v=v: v)() for v in dict.fromkeys(values)),
                    key=lambda v: _order(field, str(v)))  # numpy values as plain ones
    table = colours(field, domain)
    return {"domain": domain, "range": [table[str(v)] for v in domain]}


def shapes(values: Iterable[object]) -> dict[str, list[str]]:
    """A Vega-Lite shape scale giving digit class ``c`` the shape ``CLASS_SHAPES[c]``."""
    domain = [getattr(v, "item", lambda v=v: v)() for v in dict.fromkeys(values)]
    ranks = [CLASSES.index(c) for c in _classes([str(v) for v in domain])]
    return {"domain": domain, "range": [CLASS_SHAPES[r] for r in ranks]}


__all__ = [
    "OKABE_ITO", "GREYS", "PALETTE", "CLASSES", "CLASS_SHAPES", "KINDS", "PRUNED_LEVELS",
    "QUANTIZED", "SERIES", "SOURCES", "TEST_SETS", "VERDICTS", "CATEGORIES", "ANNOTATION",
    "REFERENCE", "SEQUENTIAL", "DIVERGING", "SCHEMES", "MEANINGS", "MIN_FONT", "TITLE_FONT",
    "AXIS_TITLE_FONT", "CONFIG", "colours", "scale", "shapes",
]
