"""How every number and name reaches a reader: one rule for tables, tooltips and slider labels.

- :func:`header`: a column name as a reader label (``ci_low`` -> ``95% CI low``,
  ``over_index_train`` -> ``over-index (train)``, else underscores become spaces and known
  abbreviations are spelt as readers know them: ``intercept_se`` -> ``intercept SE``).
- :func:`number`: at most three significant digits (``0.0417``, ``2.19``, ``12,300``),
  integral values as integers with thousands separators (counts: ``2,193``), small values
  in plain decimals too (``0.000179``: a reader meets no power of ten; only below 10⁻⁹ or
  from 10¹⁵ on, which no page shows, ``1.79 × 10⁻¹⁰``; never ``1.79e-04``), ``n/a``
  when missing. Every negative number has a true minus sign (``−12.3``, :data:`MINUS`), never
  a hyphen; no number is shown as ``−0``.
- :func:`places`, :func:`fixed`, :func:`same_precision`, :func:`interval_columns`: numbers
  that stand beside an interval (an estimate, its interval and the paper's value) share one
  number of decimals, the one that shows the interval's half-width to two significant digits
  (``−40.1 [−44.0, −36.2]`` beside the paper's ``−36.9``, never ``−36.94``).
- :func:`percent`, :func:`points`, :func:`pvalue`, :func:`yes_no`, :func:`sign`: shares in %,
  differences of shares in percentage points, p-values (``< 0.001``, else two significant
  digits), booleans, signs (``+`` / ``−`` / ``0``).
- :func:`axis_title`: a column as a chart's axis or legend title, words with the unit
  (:data:`AXIS_TITLES`: ``abs_tilt`` -> ``Mean absolute tilt of the writer's digits (columns per
  row)``); fractions' axes read in % (:data:`PERCENT_AXES`).
- :func:`term`: a model term as statsmodels names it as a reader label
  (``np.exp(sparsity):accuracy0`` -> ``e^sparsity × accuracy0``, ``C(treatment)[T.rewind]``
  -> ``treatment = rewind``).
- :func:`plain_powers`: numbers written with a power of ten inside a string (an archived
  report's ``1.11 × 10⁻⁴``) written by :func:`number` (``0.000111``).
- :func:`cell`: any table value by its type; :func:`clean_text`: raw floats inside a string
  (``170.000000 / 2193.000000`` -> ``170 / 2,193``) rewritten with :func:`number`, model terms
  inside it (``coefficient of np.exp(sparsity):accuracy0``) with :func:`term`.
- :data:`JS_FORMAT`: the same rule in JavaScript, which :func:`pruneaudit.charts.chart_html`
  applies to chart tooltips and the value shown beside a slider in the browser.
- :func:`readable_titles`: a Vega-Lite spec whose encodings without a title get
  :func:`header` of their field (axes, legends, tooltips).
"""

from __future__ import annotations

import copy
import math
import numbers
import re
from collections.abc import Sequence

import pandas as pd

#: Significant digits a reader sees.
DIGITS = 3
#: The minus sign of every negative number shown (U+2212, not the hyphen).
MINUS = "\u2212"
#: The most decimals :func:`places` gives (a narrower interval is shown to these).
MAX_PLACES = 4
MISSING = "n/a"
#: Below ``TINY`` or from ``HUGE`` on, a number is written with a power of ten.
TINY = 1e-9
HUGE = 1e15
#: The smallest p-value written as a number (below: ``< 0.001``).
P_FLOOR = 1e-3

#: Column names whose reader label is not the general rule's.
LABELS: dict[str, str] = {
    "ci_low": "95% CI low",
    "ci_high": "95% CI high",
    "p": "p",
    "p_bh": "p (Benjamini-Hochberg)",
    "p_value": "p",
    "pvalue": "p",
    "n": "n",
    "se": "SE",
    "over_index_train": "over-index (train)",
    "over_index_test": "over-index (test)",
    "train_share": "share of training set",
    "test_share": "share of test set",
    "cie_share": "share of CIEs",
    "cie_count": "CIEs",
    "class_name": "class",
    "paper_term": "term in the paper",
    "abs_tilt": "|tilt|",
    "top1": "top-1",
    "unfairness_max_min": "unfairness (max \u2212 min)",
    "exp_sparsity": "e^sparsity",
    "rsquared": "R²",
    "rsquared_adj": "adjusted R²",
    "sign_E": "sign of E",
    "sign_F": "sign of F",
    "outside_01": "predictions outside [0, 1]",
    "corr_target_pred": "correlation of target and prediction",
    "bse": "SE",
    "tvalues": "t",
    "pvalues": "p",
    "params": "coefficient",
    "nobs": "observations",
    "df_resid": "residual df",
}
#: Words of a column name written as readers know them (the general rule of :func:`header`).
WORDS: dict[str, str] = {
    "ci": "95% CI",
    "se": "SE",
    "sd": "SD",
    "std": "SD",
    "bh": "BH",
    "fpr": "FPR",
    "fnr": "FNR",
    "tpr": "TPR",
    "pie": "PIE",
    "pies": "PIEs",
    "cie": "CIE",
    "cies": "CIEs",
    "ols": "OLS",
    "glm": "GLM",
    "r2": "R²",
    "rmse": "RMSE",
    "mae": "MAE",
    "corr": "correlation",
    "top1": "top-1",
    "acc": "accuracy",
    "abs": "absolute",
    "pct": "%",
    "hsf0": "hsf0",
    "hsf4": "hsf4",
}
#: How a chart names a column on an axis or legend: words, with the unit (:func:`axis_title`).
#: A view whose column means something more specific names it in prose (``"Change in top-1
#: accuracy (points)"``), which is its own title.
AXIS_TITLES: dict[str, str] = {
    "sparsity": "Sparsity (% of weights removed)",
    "accuracy": "Top-1 accuracy (%)",
    "recall": "Recall (%)",
    "class": "Digit class",
    "class_name": "Digit class",
    "digit": "Digit class",
    "label": "Class (label index)",
    "iteration": "Pruning iteration (0 = unpruned)",
    "level": "Pruning level (% of weights removed)",
    "severity": "Corruption severity (0 = clean)",
    "technique": "Pruning technique",
    "kind": "Kind of compression",
    "variant": "Compressed population",
    "level_name": "Population (dense or pruned)",
    "series": "Writer series",
    "source": "Source of the value",
    "unfairness_max_min": "Best − worst class accuracy (percentage points)",
    "unfairness_mean_min": "Mean − worst class accuracy (percentage points)",
    "spread": "Best − worst class accuracy (percentage points)",
    "unpruned_accuracy": "Class accuracy before pruning (%)",
    "accuracy_unpruned": "Writer accuracy before pruning (%)",
    "accuracy_pruned": "Writer accuracy after pruning (%)",
    "accuracy_change": "Change in writer accuracy (percentage points)",
    "tilt": "Mean tilt of the writer's digits (columns per row)",
    "abs_tilt": "Mean absolute tilt of the writer's digits (columns per row)",
    "mean_activation": "Mean pixel value of the writer's digits (0–255)",
    "distance_to_class_mean": ("Mean Euclidean distance to the class's mean training digit "
                               "(pixel values)"),
    "n": "Digits (count)",
    "target": "Measured class accuracy (%)",
    "predicted": "Predicted class accuracy (%)",
    "residual": "Residual: measured − predicted accuracy (percentage points)",
    "count": "Class-accuracy observations (count)",
    "share": "Share of the measured-accuracy bin (%)",
    "absolute_recall_difference": "Recall of compressed minus dense (percentage points)",
    "normalized_difference": "Relative change from dense (%)",
    "configuration": "Technique / treatment / imbalance factor",
}
#: Values a legend shows with words beside their code (QMNIST's writer series, METHODS.md).
LEGEND_LABELS: dict[str, dict[str, str]] = {
    "series": {"hsf0": "hsf0 (NIST employees)", "hsf1": "hsf1 (NIST employees)",
               "hsf4": "hsf4 (high-school students)", "all": "all digits"},
}
#: Columns holding fractions (accuracies, shares and their differences): their axes read in %.
PERCENT_AXES = frozenset({
    "sparsity", "accuracy", "recall", "unfairness_max_min", "unfairness_mean_min", "spread",
    "unpruned_accuracy", "accuracy_unpruned", "accuracy_pruned", "accuracy_change", "target",
    "predicted", "residual", "share", "level", "absolute_recall_difference",
    "normalized_difference",
})
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: A hyphen used as the minus sign of a number (not in ``2026-11-20``, ``top-1``, ``K-1``).
_HYPHEN_MINUS = re.compile(r"(?<![\w.\-+/])-(?=\.?\d)")
#: A float literal as Python or pandas print it, never as this module writes one: five or more
#: decimals of which four or more count (``0.09034``, past the leading zeros), four or more
#: decimals that are all zeros (``9.0000``), or an exponent (``1.79e-04``). Four decimals
#: (``0.0417``, ``−0.0075``) and small values to three digits (``0.000179``) are the book's. A
#: colon before it makes it part of an identifier (``arXiv:2009.09936``), not a float.
_RAW_CORE = r"-?\d+(?:\.(?:(?=\d{5})0*[1-9]\d{3,}|0{4,})(?:e[-+]?\d+)?|(?:\.\d+)?e[-+]?\d+)"
RAW_FLOAT = re.compile(rf"(?<![\w.:]){_RAW_CORE}(?![\w.])")


#: How statsmodels writes a transform in a formula term, and how a reader reads it.
_TRANSFORMS = (
    (re.compile(r"^np\.exp\((.+)\)$"), "e^{0}"),
    (re.compile(r"^np\.log\((.+)\)$"), "log {0}"),
    (re.compile(r"^I\((.+)\)$"), "{0}"),
    (re.compile(r"^Q\(['\"](.+)['\"]\)$"), "{0}"),
)
#: A categorical level as patsy writes it: ``C(var)[T.level]`` or ``var[T.level]``.
_LEVEL = re.compile(r"^(?:C\((?P<c>[^)]+)\)|(?P<v>[^\[]+))\[T\.(?P<level>.+)\]$")


_SPECIAL = r"(?:np\.\w+\([^()\s]*\)|C\([^()\s]*\)\[T\.[^\]\s]+\]|[A-Za-z_]\w*\[T\.[^\]\s]+\])"
_PART = rf"(?:{_SPECIAL}|[A-Za-z_]\w*)"
#: A model term as statsmodels writes it inside prose: a chain of ``:``-joined parts of which at
#: least one is a transform or a categorical level (``np.exp(sparsity):accuracy0``).
MODEL_TERM = re.compile(rf"(?<![\w.])(?:{_PART}:)*{_SPECIAL}(?::{_PART})*(?![\w(\[])")


def term(name: object) -> str:
    """A model term as statsmodels or patsy write it, as a reader label: interactions ``a:b``
    as ``a × b``, ``np.exp(x)`` as ``e^x``, ``C(x)[T.v]`` and ``x[T.v]`` as ``x = v``,
    ``Intercept`` as ``intercept``, each part by :func:`header`."""
    parts = []
    for part in str(name).split(":"):
        part = part.strip()
        if part == "Intercept":
            parts.append("intercept")
            continue
        level = _LEVEL.match(part)
        if level:
            var = level.group("c") or level.group("v")
            parts.append(f"{term(var)} = {level.group('level')}")
            continue
        for pattern, shown in _TRANSFORMS:
            inner = pattern.match(part)
            if inner:
                part = shown.format(term(inner.group(1)))
                break
        else:
            part = header(part)
        parts.append(part)
    return " \u00d7 ".join(parts)


def header(name: object) -> str:
    """A column name as a reader label (:data:`LABELS`, else the words of :data:`WORDS`,
    underscores as spaces); a name that is already prose (has a space) is kept."""
    text = str(name)
    if text in LABELS:
        return LABELS[text]
    if " " in text or "_" not in text:
        return WORDS.get(text, text)
    return " ".join(WORDS.get(word.lower(), word) for word in text.split("_") if word)


def axis_title(name: object) -> str:
    """A column as an axis or legend title: :data:`AXIS_TITLES` (words with the unit), a name
    that is already prose (has a space) as it is, else :func:`header`."""
    text = str(name)
    return AXIS_TITLES.get(text) or (text if " " in text else header(text))


def _missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return not math.isfinite(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _signed(text: str) -> str:
    """``text`` (a formatted number) with a true minus sign; ``−0``, ``−0.00`` lose theirs."""
    if text.startswith("-"):
        if not any(c in "123456789" for c in text.split("e")[0].split("×")[0]):
            return text[1:]
        return MINUS + text[1:]
    return text


def number(value: float | None, digits: int = DIGITS) -> str:
    """``value`` with at most ``digits`` significant digits (module doc); integral values
    in full with thousands separators."""
    if _missing(value):
        return MISSING
    v = float(value)  # type: ignore[arg-type]
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < HUGE:
        return _signed(f"{int(v):,}")
    if abs(v) < TINY or abs(v) >= HUGE:
        mantissa, exponent = f"{v:.{digits - 1}e}".split("e")
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        return _signed(f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}")
    places = digits - 1 - math.floor(math.log10(abs(v)))
    rounded = round(v, places)
    if rounded != 0 and math.floor(math.log10(abs(rounded))) > math.floor(math.log10(abs(v))):
        places -= 1  # 0.9996 -> 1.00 would show four digits
        rounded = round(v, places)
    text = f"{rounded:,.{max(places, 0)}f}"
    return "0" if float(text.replace(",", "")) == 0 else _signed(text)


def places(low: float | None, high: float | None, scale: float = 1.0) -> int | None:
    """The decimals that show an interval's half-width (times ``scale``, the display unit:
    100 for percent) to two significant digits, between 0 and :data:`MAX_PLACES`; None when
    there is no finite interval of positive width (then each number gets :func:`number`'s
    significant digits)."""
    if _missing(low) or _missing(high) or not float(high) > float(low):  # type: ignore[arg-type]
        return None
    half = (float(high) - float(low)) / 2 * abs(scale)  # type: ignore[arg-type]
    return int(min(MAX_PLACES, max(0, 1 - math.floor(math.log10(half)))))


def fixed(value: float | None, decimals: int | None, scale: float = 1.0) -> str:
    """``value * scale`` with ``decimals`` decimals, thousands separators and a true minus
    (no ``−0.0``); by :func:`number` when ``decimals`` is None; ``n/a`` when missing."""
    if _missing(value):
        return MISSING
    v = float(value) * scale  # type: ignore[arg-type]
    if decimals is None:
        return number(v)
    if v == 0 and decimals >= MAX_PLACES:
        return "0"  # not 0.0000, which reads as a raw float
    return _signed(f"{v:,.{decimals}f}")


def same_precision(
    values: Sequence[float | None], low: float | None, high: float | None, scale: float = 1.0
) -> list[str]:
    """``values`` (an estimate, the interval's ends, the paper's value...) each by :func:`fixed`
    with one number of decimals: :func:`places` of ``[low, high]`` or, without an interval,
    the decimals that show the first nonzero value to :data:`DIGITS` significant digits; raised
    (up to :data:`MAX_PLACES`) so that no nonzero value reads as 0. A value still too small for
    that is written by :func:`number` (its three significant digits)."""
    decimals = places(low, high, scale)
    finite = [abs(float(v) * scale) for v in values if not _missing(v) and float(v) != 0]
    if decimals is None:
        if not finite:
            return [MISSING if _missing(v) else "0" for v in values]
        decimals = max(0, DIGITS - 1 - math.floor(math.log10(finite[0])))
    shown = [f for f in finite if f >= 0.5 * 10.0**-MAX_PLACES]
    if shown:
        decimals = max(decimals, -math.floor(math.log10(min(shown))))
    decimals = min(decimals, MAX_PLACES)
    tiny = 0.5 * 10.0**-decimals
    return [
        number(float(v) * scale)
        if not _missing(v) and 0 < abs(float(v) * scale) < tiny
        else fixed(v, decimals, scale)
        for v in values
    ]


def interval_columns(
    frame: pd.DataFrame, columns: Sequence[str], low: str = "ci_low", high: str = "ci_high",
    scale: float = 1.0,
) -> pd.DataFrame:
    """A copy of ``frame`` whose ``columns`` (an estimate, the interval's ends ``low`` and
    ``high``, the paper's value...) are text, each row by :func:`same_precision` of its own
    interval: a table's one rule for numbers that stand beside an interval."""
    out = frame.copy()
    shown = [
        same_precision([row[c] for c in columns], row[low], row[high], scale)
        for _, row in frame.iterrows()
    ]
    for i, column in enumerate(columns):
        out[column] = [texts[i] for texts in shown]
    return out


def sign(value: float | None) -> str:
    """The sign of ``value``: ``+``, ``−`` or ``0`` (``n/a`` when missing)."""
    if _missing(value):
        return MISSING
    v = float(value)  # type: ignore[arg-type]
    return "+" if v > 0 else MINUS if v < 0 else "0"


def percent(value: float | None, decimals: int = 1, sign: bool = False) -> str:
    """A share in percent with ``decimals`` decimals (``12.3%``; ``+12.3%`` with ``sign``)."""
    if _missing(value):
        return MISSING
    text = _signed(f"{float(value) * 100:{'+' if sign else ''}.{decimals}f}")  # type: ignore
    return f"{'+' if sign and text in ('0', '0.' + '0' * decimals) else ''}{text}%"


def points(value: float | None, decimals: int = 1) -> str:
    """A difference of shares in signed percentage points (``−5.0 pts``, ``+2.5 pts``)."""
    if _missing(value):
        return MISSING
    text = _signed(f"{float(value) * 100:+.{decimals}f}")  # type: ignore[arg-type]
    return f"{'' if text[0] in '+' + MINUS else '+'}{text} pts"


def pvalue(value: float | None) -> str:
    """A p-value: ``< 0.001`` below 0.001, else two significant digits."""
    if _missing(value):
        return MISSING
    return "< 0.001" if float(value) < P_FLOOR else number(value, 2)  # type: ignore[arg-type]


def yes_no(value: object) -> str:
    """``yes`` / ``no`` for a boolean (``n/a`` when missing)."""
    return MISSING if _missing(value) else ("yes" if bool(value) else "no")


#: A number written with a power of ten, as reports used to print small values
#: (``1.11 × 10⁻⁴``, ``−3.87 × 10⁻⁴``).
POWER_OF_TEN = re.compile(r"(?<![\w.])([-\u2212]?\d+(?:\.\d+)?) × 10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_PLAIN_DIGITS = {superscript: digit for digit, superscript in _SUPERSCRIPT.items()}


def power_value(match: re.Match) -> float:
    """The value of a :data:`POWER_OF_TEN` match (``1.11 × 10⁻⁴`` -> 0.000111)."""
    mantissa = float(match.group(1).replace(MINUS, "-"))
    return mantissa * 10.0 ** int(match.group(2).translate(_PLAIN_DIGITS))


def plain_powers(text: str) -> str:
    """``text`` with every number written with a power of ten (:data:`POWER_OF_TEN`) written
    by :func:`number` instead (``1.11 × 10⁻⁴`` -> ``0.000111``: the same digits)."""
    return POWER_OF_TEN.sub(lambda match: number(power_value(match)), text)


def clean_text(text: str) -> str:
    """``text`` with every raw float literal (:data:`RAW_FLOAT`) written by :func:`number`,
    every model term as statsmodels writes it (:data:`MODEL_TERM`) by :func:`term`, and a
    hyphen that stands for a minus sign (``[-1, 1]``, ``gap -0.12``) as a minus sign."""
    text = MODEL_TERM.sub(lambda m: term(m.group(0)), text)
    text = RAW_FLOAT.sub(lambda m: number(float(m.group(0))), text)
    return _HYPHEN_MINUS.sub(MINUS, text)


def cell(value: object) -> str:
    """Any table value for a reader: booleans yes/no, integers with separators, floats by
    :func:`number`, text by :func:`clean_text`, missing values ``n/a``."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return yes_no(value)
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return number(float(value))
    if _missing(value):
        return MISSING
    return clean_text(str(value))


def _unescape(field: str) -> str:
    return re.sub(r"\\(.)", r"\1", field)


def readable_titles(spec: dict) -> dict:
    """A copy of the Vega-Lite ``spec`` in which every encoding channel (and tooltip entry)
    with a field and no title has ``header(field)`` as its title."""
    spec = copy.deepcopy(spec)

    def fix(channel: object) -> None:
        if isinstance(channel, list):
            for item in channel:
                fix(item)
        elif (
            isinstance(channel, dict)
            and isinstance(channel.get("field"), str)
            and "title" not in channel
        ):
            channel["title"] = header(_unescape(channel["field"]))

    def walk(node: object) -> None:
        if isinstance(node, dict):
            encoding = node.get("encoding")
            if isinstance(encoding, dict):
                for channel in encoding.values():
                    fix(channel)
            for key, value in node.items():
                if key not in ("data", "datasets"):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(spec)
    return spec


#: :func:`number`'s rule in JavaScript: ``paNumber(x)`` for a number, ``paText(s)`` for a
#: string whose raw float literals it rewrites (tooltip values, a slider's shown value), found
#: by :data:`RAW_FLOAT`'s own pattern.
_JS_FORMAT = r"""
function paNumber(v) {
  if (v === null || v === undefined || !isFinite(v)) return "n/a";
  if (v === 0) return "0";
  if (Number.isInteger(v) && Math.abs(v) < 1e15) {
    return v.toLocaleString("en-US").replace("-", "\u2212");
  }
  if (Math.abs(v) < 1e-9 || Math.abs(v) >= 1e15) {
    var parts = v.toExponential(2).split("e"), m = parts[0];
    if (m.indexOf(".") >= 0) m = m.replace(/0+$/, "").replace(/\.$/, "");
    var sup = {"-": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3",
      "4": "\u2074", "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078", "9": "\u2079"};
    var e = String(parseInt(parts[1], 10)).split("").map(function (c) { return sup[c]; });
    return m.replace("-", "\u2212") + " \u00d7 10" + e.join("");
  }
  var places = 2 - Math.floor(Math.log10(Math.abs(v)));
  var r = Number(v.toFixed(Math.max(places, 0)));
  if (places < 0) r = Math.round(v / Math.pow(10, -places)) * Math.pow(10, -places);
  if (r !== 0 && Math.floor(Math.log10(Math.abs(r))) > Math.floor(Math.log10(Math.abs(v)))) {
    places -= 1;
    r = places >= 0 ? Number(v.toFixed(places)) :
      Math.round(v / Math.pow(10, -places)) * Math.pow(10, -places);
  }
  if (r === 0) return "0";
  return r.toLocaleString("en-US", {minimumFractionDigits: Math.max(places, 0),
                                    maximumFractionDigits: Math.max(places, 0)})
    .replace("-", "\u2212");
}
function paText(s) {
  if (typeof s === "number") return paNumber(s);
  if (typeof s !== "string") return s;
  if (/^-?\d+(\.\d+)?(e[-+]?\d+)?$/.test(s.trim())) return paNumber(Number(s));
  return s.replace(
    /(^|[^\w.:])(RAW_CORE)(?![\w.])/g,
    function (all, pre, num) { return pre + paNumber(Number(num)); });
}
"""
JS_FORMAT = _JS_FORMAT.replace("RAW_CORE", _RAW_CORE)

__all__ = [
    "DIGITS", "MINUS", "MAX_PLACES", "MISSING", "TINY", "HUGE", "P_FLOOR", "LABELS", "WORDS",
    "RAW_FLOAT", "MODEL_TERM", "POWER_OF_TEN", "power_value", "plain_powers",
    "JS_FORMAT", "AXIS_TITLES", "LEGEND_LABELS", "PERCENT_AXES", "axis_title", "header", "term",
    "number", "places", "fixed", "same_precision", "interval_columns", "sign",
    "percent", "points", "pvalue", "yes_no", "clean_text", "cell", "readable_titles",
]
