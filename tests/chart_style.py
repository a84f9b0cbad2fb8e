"""The book's chart style as checks on a Vega-Lite spec, shared by the chart and study tests:
every colour from the palette, one colour per meaning, text of at least 12 px, axis and legend
titles in words (never a column name)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator

import altair as alt
import numpy as np

from pruneaudit.charts import palette

#: The config entries that must hold a text size (else Vega's 10 or 11 px defaults apply).
FONT_ENTRIES = (("axis", "labelFontSize"), ("axis", "titleFontSize"),
                ("legend", "labelFontSize"), ("legend", "titleFontSize"), ("title", "fontSize"),
                ("header", "labelFontSize"), ("header", "titleFontSize"), ("text", "fontSize"))
#: Channels drawn with an axis, a legend or a header: their titles are what a reader reads.
TITLED = ("x", "y", "color", "fill", "stroke", "shape", "size", "column", "row", "facet")
#: Channels that may drop their title (the values name themselves: categories, facets).
UNTITLED_OK = ("x", "y", "column", "row", "facet")
COLOURED = ("color", "fill", "stroke")
#: A title that reads as an identifier: one token of letters, digits and ``_ . | -`` (no space).
IDENTIFIER = re.compile(r"^[\w.|\-]+$")
#: Codes no title may show, whatever surrounds them.
CODES = re.compile(r"\b(?:abs_tilt|hsf\d|fnr|fpr|\w+_\w+)\b")


def _walk(node: object, path: str = "") -> Iterator[tuple[str, dict]]:
    """Every dict of a spec with its path, past its data."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            if key not in ("data", "datasets"):
                yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk(item, f"{path}/{i}")


def _encodings(spec: dict) -> Iterator[tuple[str, str, dict]]:
    for path, node in _walk(spec):
        encoding = node.get("encoding")
        if isinstance(encoding, dict):
            for channel, value in encoding.items():
                if isinstance(value, dict):
                    yield path, channel, value
        if isinstance(node.get("facet"), dict) and "field" in node["facet"]:
            yield path, "facet", node["facet"]


def _font_problems(spec: dict) -> list[str]:
    config = spec.get("config", {})
    out = [f"config {section}.{key} unset (Vega's default is under {palette.MIN_FONT} px)"
           for section, key in FONT_ENTRIES if key not in config.get(section, {})]
    for path, node in _walk(spec):
        out += [f"{path}/{key} = {value} px" for key, value in node.items()
                if key.lower().endswith("fontsize") and isinstance(value, (int, float))
                and value < palette.MIN_FONT]
    return out


def _colour_problems(spec: dict) -> list[str]:
    allowed = {c.lower() for c in palette.PALETTE}
    out = []
    for path, node in _walk(spec):
        for key in COLOURED:
            value = node.get(key)
            if isinstance(value, str) and value.lower() not in allowed:
                out.append(f"{path}/{key} = {value!r} is not in the palette")
        if "range" in node and path.endswith("/scale") and isinstance(node["range"], list):
            out += [f"{path} range colour {c!r} is not in the palette" for c in node["range"]
                    if isinstance(c, str) and c.startswith("#") and c.lower() not in allowed]
        if "scheme" in node and path.endswith("/scale") and node["scheme"] not in palette.SCHEMES:
            out.append(f"{path} scheme {node['scheme']!r} is not the book's")
    for path, channel, enc in _encodings(spec):
        if channel not in COLOURED or "field" not in enc:
            continue
        scale = enc.get("scale") or {}
        if enc.get("type") == "nominal" and not (scale.get("domain") and scale.get("range")):
            out.append(f"{path}/{channel} {enc['field']!r}: no fixed colour per value")
        if enc.get("type") == "quantitative" and scale.get("scheme") not in palette.SCHEMES:
            out.append(f"{path}/{channel} {enc['field']!r}: no scheme of the book")
        if scale.get("domain") and scale.get("range") and enc["field"] in palette.MEANINGS:
            expected = palette.colours(enc["field"], scale["domain"])
            if list(expected.values()) != list(scale["range"]):
                out.append(f"{path}/{channel} {enc['field']!r}: colours {scale['range']} are "
                           f"not the palette's {list(expected.values())}")
    return out


def _title_text(title: object) -> str:
    return " ".join(title) if isinstance(title, list) else str(title)


def _title_problems(spec: dict) -> list[str]:
    out = []
    for path, channel, enc in _encodings(spec):
        if channel not in TITLED or "field" not in enc or enc.get("axis", 0) is None \
                or enc.get("legend", 0) is None:
            continue  # nothing drawn to title
        where = f"{path}/{channel} {enc['field']!r}"
        if "title" not in enc:
            out.append(f"{where}: no title (Vega-Lite would show the column name)")
        elif enc["title"] is None:
            if channel not in UNTITLED_OK:
                out.append(f"{where}: a legend without a title")
        elif IDENTIFIER.match(text := _title_text(enc["title"])) or CODES.search(text):
            out.append(f"{where}: title {text!r} reads as an identifier")
    return out


def problems(spec: dict) -> list[str]:
    """What in ``spec`` breaks the book's style, one line each (none: it keeps it)."""
    return _font_problems(spec) + _colour_problems(spec) + _title_problems(spec)


def meanings(specs: Iterable[dict]) -> dict[tuple[str, str], set[str]]:
    """Across ``specs``: the colours each (field, value) of a nominal colour scale gets, by the
    field's meaning (:data:`~pruneaudit.charts.palette.MEANINGS`, else the field itself)."""
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for spec in specs:
        for _, channel, enc in _encodings(spec):
            scale = enc.get("scale") or {}
            if channel in COLOURED and "field" in enc and scale.get("domain"):
                meaning = palette.MEANINGS.get(enc["field"], enc["field"])
                for value, colour in zip(scale["domain"], scale.get("range", []), strict=False):
                    seen[(meaning, str(value))].add(colour)
    return dict(seen)


def check(*charts: alt.TopLevelMixin) -> list[dict]:
    """Assert that every chart keeps the book's style; their specs."""
    specs = [chart.to_dict() for chart in charts]
    found = {i: problems(spec) for i, spec in enumerate(specs)}
    assert not any(found.values()), {i: p for i, p in found.items() if p}
    return specs


# --------------------------------------------------------------------------- colour vision

#: Machado, Oliveira & Fernandes (2009), severity 1, on linear RGB.
DEFICIENCIES = {
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}


def _linear(colour: str) -> np.ndarray:
    rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ np.clip(linear, 0, 1)
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen_distance(a: str, b: str, deficiency: str | None = None) -> float:
    """CIELAB distance (CIE76) of two colours as seen with ``deficiency`` (None: typical)."""
    m = np.eye(3) if deficiency is None else np.array(DEFICIENCIES[deficiency])
    return float(np.linalg.norm(_lab(m @ _linear(a)) - _lab(m @ _linear(b))))
