/* Reading on a phone (reader.css holds the matching rules): a table wider than its box on a
   screen of at most CARDS_BELOW px becomes stacked cards (class pa-cards; each cell is labelled
   with its column's header, data-label). The findings tables and the front page's summary stack
   by their own rules. Charts fit their box by pruneaudit.charts.fitting, in the book and in a
   notebook alike. */
(function () {
  "use strict";
  var CARDS_BELOW = 640;

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
