/* Reading on a phone (reader.css holds the matching rules).

   Charts: pruneaudit.charts.chart_html hands each Vega-Lite spec to window.paFitSpec before it
   draws it; in a box narrower than FIT_BELOW px the spec is redrawn for the box's width: a
   single or layered view fits the width with its axes and legend (autosize fit-x), side-by-side
   views stack, facets and wrapped concatenations take one column, and views of fixed-size images
   (galleries) scale their images with them; long titles break into lines. Wider boxes draw the
   spec as written.

   Tables: a table wider than its box on a screen of at most CARDS_BELOW px becomes stacked cards
   (class pa-cards; each cell is labelled with its column's header, data-label). The findings
   tables and the front page's summary stack by their own rules. */
(function () {
  "use strict";
  var FIT_BELOW = 600;
  var CARDS_BELOW = 640;
  /* Room left beside each view of a stacked composition for its axes' labels and titles. */
  var AXIS_ROOM = 80;
  /* Width of a title's character, px (Vega's 13 px bold title font, a little generous). */
  var TITLE_CHAR = 7.5;

  function copy(value) {
    return JSON.parse(JSON.stringify(value));
  }

  function isComposed(spec) {
    return ["hconcat", "vconcat", "concat", "facet", "repeat"].some(function (k) {
      return k in spec;
    });
  }

  /* The marks of a view and of its layers. */
  function marks(spec) {
    var own = spec.mark ? [spec.mark] : [];
    (spec.layer || []).forEach(function (sub) { own = own.concat(marks(sub)); });
    return own;
  }

  function hasImages(spec) {
    return marks(spec).some(function (m) { return (m.type || m) === "image"; });
  }

  /* A view of fixed-size images, drawn `factor` times its size: the view and every image. */
  function scaleImages(spec, factor) {
    ["width", "height"].forEach(function (key) {
      if (typeof spec[key] === "number") spec[key] = Math.floor(spec[key] * factor);
      if (spec.mark && typeof spec.mark === "object" && typeof spec.mark[key] === "number") {
        spec.mark[key] = spec.mark[key] * factor;
      }
    });
    (spec.layer || []).forEach(function (sub) { scaleImages(sub, factor); });
  }

  /* Titles of a view and its parts broken into lines that fit `width` px (a long title would
     widen the drawing past its box). */
  function wrapTitles(spec, width) {
    var chars = Math.max(20, Math.floor(width / TITLE_CHAR));
    var wrap = function (text) {
      if (typeof text !== "string" || text.length <= chars) return text;
      var lines = [], line = "";
      text.split(/\s+/).forEach(function (word) {
        if (line && (line + " " + word).length > chars) { lines.push(line); line = word; }
        else { line = line ? line + " " + word : word; }
      });
      return lines.concat(line ? [line] : []);
    };
    if (typeof spec.title === "string") spec.title = wrap(spec.title);
    else if (spec.title && typeof spec.title === "object") {
      spec.title.text = wrap(spec.title.text);
      spec.title.subtitle = wrap(spec.title.subtitle);
    }
    ["hconcat", "vconcat", "concat", "layer"].forEach(function (key) {
      (spec[key] || []).forEach(function (sub) { wrapTitles(sub, width); });
    });
    if (spec.spec) wrapTitles(spec.spec, width);
  }

  /* A view inside a composition: at most `width` px for its plotting area. */
  function fitView(spec, width) {
    if (isComposed(spec)) {
      fitComposed(spec, width);
    } else if (hasImages(spec)) {
      if (typeof spec.width === "number" && spec.width > width) {
        scaleImages(spec, width / spec.width);
      }
    } else if (typeof spec.width !== "number" || spec.width > width) {
      spec.width = width;
    }
  }

  function fitComposed(spec, width) {
    if (spec.hconcat) {
      spec.vconcat = spec.hconcat;
      delete spec.hconcat;
    }
    if ("columns" in spec || spec.concat) spec.columns = 1;
    var inner = width - AXIS_ROOM;
    (spec.vconcat || spec.concat || []).forEach(function (sub) { fitView(sub, inner); });
    if (spec.spec) fitView(spec.spec, inner);
    if (spec.facet && spec.facet.column && !spec.facet.row) {
      spec.facet.row = spec.facet.column;
      delete spec.facet.column;
    }
  }

  /* The spec drawn for a box `width` px wide (a copy; the spec itself when it needs no change). */
  function fitSpec(spec, box) {
    var width = box ? box.clientWidth : 0;
    if (!width || width >= FIT_BELOW) return spec;
    var fitted = copy(spec);
    wrapTitles(fitted, width);
    var encoding = fitted.encoding || {};
    if (encoding.column && !encoding.row) {
      encoding.row = encoding.column;
      delete encoding.column;
    }
    if (isComposed(fitted) || encoding.row) {
      fitComposed(fitted, width);
    } else if (hasImages(fitted)) {
      fitView(fitted, width - AXIS_ROOM);
    } else {
      fitted.width = width;
      fitted.autosize = {type: "fit-x", contains: "padding"};
    }
    return fitted;
  }

  window.paFitSpec = fitSpec;

  /* Tables: stacked cards where a table is wider than its box on a phone. */
  function headers(table) {
    var rows = table.tHead ? table.tHead.rows : [];
    var last = rows.length ? rows[rows.length - 1] : null;
    return last ? [].map.call(last.cells, function (c) { return c.textContent.trim(); }) : [];
  }

  function stackWideTables() {
    if (window.innerWidth > CARDS_BELOW) return;
    document.querySelectorAll("main table").forEach(function (table) {
      if (table.closest(".pa-summary") || table.classList.contains("pa-findings-table") ||
          table.classList.contains("pa-cards")) return;
      var box = table.closest(".pa-table-scroll") || table.parentElement;
      var wide = Math.max(table.scrollWidth, table.getBoundingClientRect().width);
      if (wide <= box.clientWidth + 1) return;
      var heads = headers(table);
      [].forEach.call(table.tBodies, function (body) {
        [].forEach.call(body.rows, function (row) {
          [].forEach.call(row.cells, function (cell, i) {
            if (heads[i] && !cell.hasAttribute("data-label")) {
              cell.setAttribute("data-label", heads[i]);
            }
          });
        });
      });
      table.classList.add("pa-cards");
      if (box.classList.contains("pa-table-scroll")) box.classList.remove("pa-scrolls");
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", stackWideTables);
  } else {
    stackWideTables();
  }
  window.addEventListener("resize", stackWideTables);
  document.addEventListener("toggle", stackWideTables, true);  // a dropdown opened: its tables
})();
