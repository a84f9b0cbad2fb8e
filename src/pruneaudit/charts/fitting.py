"""The browser side of :func:`pruneaudit.charts.chart_html`: readable numbers, and charts that
fit their box.

A chart whose box is narrower than :data:`FIT_BELOW` px (a phone, a narrow notebook column) is
drawn for the box's width from the start (``paFitBox``), and after any chart is drawn,
``paCutOff`` tells whether its drawing is wider than its box or any of its texts (a title, a
legend label, an axis title) lies past the box; such a chart is drawn again from ``paRefit``.
Both fit a spec the same way (``paFitParts``): titles broken into lines at the box's width (an
estimate of :data:`TITLE_CHAR` px a character before drawing, measured from the drawn title's
own characters after), side by side views stacked, facets and wrapped concatenations in one
column, every view no wider than the box (a single or layered view fits the width with its
axes, Vega-Lite's ``autosize`` ``fit-x``; views of images scale with their images, leaving
:data:`AXIS_ROOM`; facets in rows leave it twice, for their row headers too). A refit also
puts legends below the plot in as many columns as their widest label allows. A text still past
the box (a title that starts after wide axis labels, say) is fitted again with shorter title
lines and fewer legend columns (``shrink`` of the box's width), at most :data:`REFITS` times in
all. A chart drawn while hidden (in a closed ``<details>``) is checked again when it opens.
"""

from __future__ import annotations

from pruneaudit.charts import format as fmt
from pruneaudit.charts.palette import AXIS_TITLE_FONT, TITLE_FONT

#: Room kept beside a stacked view for its axis labels and title, px.
AXIS_ROOM = 80
#: A box narrower than this (px) gets its chart drawn for its width before the first drawing.
FIT_BELOW = 600
#: Width of a title's character before drawing, px (the book's bold title font,
#: :data:`~pruneaudit.charts.palette.TITLE_FONT` px, at 0.58 of its size: generous).
TITLE_CHAR = round(0.58 * TITLE_FONT, 1)
#: How many times a chart is drawn again to fit its box, each time this share narrower.
REFITS, SHRINK = 3, 0.8

FIT_JS = r"""
function paTexts(el, selector) {
  return [].slice.call(el.querySelectorAll("svg.marks " + selector));
}
function paCutOff(el) {
  var svg = el && el.querySelector("svg.marks");
  if (!svg || !el.clientWidth) return false;
  var box = el.getBoundingClientRect(), drawn = svg.getBoundingClientRect();
  if (drawn.width > el.clientWidth + 1) return true;
  var left = Math.max(box.left, drawn.left) - 1;
  var right = Math.min(box.left + el.clientWidth, drawn.right) + 1;
  return paTexts(el, "text").some(function (t) {
    var r = t.getBoundingClientRect();
    return (r.width > 0 && (r.left < left || r.right > right)) ||
      /\u2026$/.test(t.textContent);
  });
}
function paWidest(el, selector) {
  return paTexts(el, selector).reduce(function (w, t) {
    return Math.max(w, t.getBoundingClientRect().width);
  }, 0);
}
function paCharWidth(el) {
  var per = paTexts(el, ".role-title-text text").map(function (t) {
    return t.getBoundingClientRect().width / Math.max(1, t.textContent.length);
  });
  return Math.max.apply(null, per.concat([7]));
}
function paWrap(text, chars) {
  if (typeof text !== "string" || text.length <= chars) return text;
  var lines = [], line = "";
  text.split(/\s+/).forEach(function (word) {
    if (line && (line + " " + word).length > chars) { lines.push(line); line = word; }
    else { line = line ? line + " " + word : word; }
  });
  return lines.concat(line ? [line] : []);
}
function paWrapChannels(spec, chars) {
  [spec].concat(spec.layer || []).forEach(function (view) {
    var encoding = view.encoding || {};
    Object.keys(encoding).forEach(function (key) {
      var channel = encoding[key];
      if (!channel || typeof channel !== "object") return;
      [channel, channel.axis, channel.legend].forEach(function (part) {
        if (part && (typeof part.title === "string" || Array.isArray(part.title))) {
          part.title = paWrap([].concat(part.title).join(" "), chars);
        }
      });
    });
    if (view.layer && view !== spec) paWrapChannels(view, chars);
  });
}
function paLegends(spec, legend) {
  [spec].concat(spec.layer || []).forEach(function (view) {
    var encoding = view.encoding || {};
    Object.keys(encoding).forEach(function (key) {
      var channel = encoding[key];
      if (!channel || typeof channel !== "object" || channel.legend === null) return;
      if (channel.legend && typeof channel.legend === "object") {
        channel.legend = Object.assign({}, channel.legend, legend);
      }
    });
    if (view.layer && view !== spec) paLegends(view, legend);
  });
  (spec.vconcat || []).concat(spec.concat || [], spec.spec ? [spec.spec] : [])
    .forEach(function (sub) { paLegends(sub, legend); });
}
function paFitParts(spec, width, chars, top, axisChars) {
  axisChars = Math.min(axisChars || 1e9, Math.floor(chars * TITLE_FONT / AXIS_TITLE_FONT));
  paWrapChannels(spec, Math.max(16, axisChars));
  if (typeof spec.title === "string" || Array.isArray(spec.title)) {
    spec.title = paWrap([].concat(spec.title).join(" "), chars);
  } else if (spec.title && typeof spec.title === "object") {
    spec.title.text = paWrap([].concat(spec.title.text).join(" "), chars);
    if (spec.title.subtitle) {
      spec.title.subtitle = paWrap([].concat(spec.title.subtitle).join(" "), chars);
    }
  }
  var encoding = spec.encoding || {};
  if (encoding.column && !encoding.row) { encoding.row = encoding.column; delete encoding.column; }
  if (spec.facet && spec.facet.column && !spec.facet.row) {
    spec.facet.row = spec.facet.column;
    delete spec.facet.column;
  }
  if (spec.hconcat) { spec.vconcat = spec.hconcat; delete spec.hconcat; }
  if ("columns" in spec || spec.concat) spec.columns = 1;
  var parts = (spec.vconcat || []).concat(spec.concat || []);
  parts.forEach(function (sub) { paFitParts(sub, width - AXIS_ROOM, chars, false, axisChars); });
  if (spec.spec) paFitParts(spec.spec, width - AXIS_ROOM, chars, false, axisChars);
  if (parts.length || spec.facet || spec.repeat) return;
  var images = JSON.stringify(spec.mark || "") + JSON.stringify(spec.layer || "");
  var room = top ? width - AXIS_ROOM : width;
  if (/"image"/.test(images)) {
    if (typeof spec.width === "number" && spec.width > room) paScale(spec, room / spec.width);
    return;
  }
  if (encoding.row) {  // facets in rows: room for the row headers too (no fit-x for facets)
    room -= AXIS_ROOM;
    if (typeof spec.width !== "number" || spec.width > room) spec.width = room;
    return;
  }
  if (top) {
    spec.width = width;
    spec.autosize = {type: "fit-x", contains: "padding"};
  } else if (typeof spec.width !== "number" || spec.width > width) {
    spec.width = width;
  }
}
function paFitBox(spec, el) {
  var width = el ? el.clientWidth : 0;
  if (!width || width >= FIT_BELOW) return spec;
  var fitted = JSON.parse(JSON.stringify(spec));
  paFitParts(fitted, width, Math.max(20, Math.floor(width / TITLE_CHAR)), true);
  return fitted;
}
function paScale(spec, factor) {
  ["width", "height"].forEach(function (key) {
    if (typeof spec[key] === "number") spec[key] = Math.floor(spec[key] * factor);
    if (spec.mark && typeof spec.mark[key] === "number") spec.mark[key] *= factor;
  });
  (spec.layer || []).forEach(function (sub) { paScale(sub, factor); });
}
function paRefit(spec, el, config, shrink) {
  var width = el.clientWidth, room = Math.floor(width * (shrink || 1));
  var fitted = JSON.parse(JSON.stringify(spec));
  var label = paWidest(el, ".role-legend-label text");
  var chars = Math.max(16, Math.floor((room - 24) / paCharWidth(el)));
  // an x title is centred on the plot, which starts after the y axis's labels
  var labels = paWidest(el, '.role-axis[aria-label^="Y-axis"] .role-axis-label text');
  paFitParts(fitted, width - 8, chars, true, Math.floor((room - labels - 40) / 8));
  var legend = {orient: "bottom", direction: "vertical", labelLimit: room - 40,
                columns: Math.max(1, Math.floor((room - 24) / (label + 48)))};
  paLegends(fitted, legend);  // a legend's own orient or columns would override the config's
  var merged = JSON.parse(JSON.stringify(config || {}));
  merged.legend = Object.assign({}, merged.legend, legend,
                                {layout: {bottom: {direction: "vertical", anchor: "start"}}});
  return {spec: fitted, config: merged};
}
""".replace("AXIS_ROOM", str(AXIS_ROOM)).replace("FIT_BELOW", str(FIT_BELOW)).replace(
    "AXIS_TITLE_FONT", str(AXIS_TITLE_FONT)).replace("TITLE_FONT", str(TITLE_FONT)).replace(
    "TITLE_CHAR", str(TITLE_CHAR))

#: Browser side of :mod:`pruneaudit.charts.format`: tooltips and the value beside each slider
#: go through ``paText``; a chart wider than its box gets the class ``pa-scrolls`` (its cue).
READABLE_JS = fmt.JS_FORMAT + r"""
function paEscape(s) {
  return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
function paTooltip(value, sanitize) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return paEscape(paText(value));
  }
  var html = "", rows = "";
  if (value.title) html += "<h2>" + paEscape(paText(value.title)) + "</h2>";
  if (value.image) html += "<img src=\"" + paEscape(value.image) + "\">";
  Object.keys(value).forEach(function (key) {
    if (key === "title" || key === "image" || value[key] === undefined) return;
    var shown = value[key];
    if (shown !== null && typeof shown === "object") shown = JSON.stringify(shown);
    rows += "<tr><td class=\"key\">" + paEscape(key) + "</td><td class=\"value\">" +
      paEscape(paText(shown)) + "</td></tr>";
  });
  return html + (rows ? "<table>" + rows + "</table>" : "") || "{}";
}
function readable(el) {
  if (!el) return;
  el.querySelectorAll(".vega-bind input[type=range]").forEach(function (input) {
    var shown = input.nextElementSibling;
    if (!shown) return;
    var fix = function () { shown.textContent = paText(String(input.value)); };
    input.addEventListener("input", fix);
    input.addEventListener("change", fix);
    fix();
  });
  var cue = function () {
    el.classList.toggle("pa-scrolls", el.scrollWidth > el.clientWidth + 1);
  };
  cue();
  window.addEventListener("resize", cue);
}
"""
