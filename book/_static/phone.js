/* Phones: long secondary sections folded (reader.css holds the matching rules).

   On a screen at most FOLD_BELOW px wide, each section (an h2 and what follows it) that comes
   after the page's findings table and its key figure and is taller than FOLD_TALLER screens is
   folded under its heading: a <details class="pa-fold"> whose summary is the heading and a hint
   ("tap to open"). Its anchor still opens it: a link to the section or to anything in it unfolds
   the section. Charts drawn while folded are fitted when the section opens (chart_html). */
(function () {
  "use strict";
  var FOLD_BELOW = 640;
  var FOLD_TALLER = 1;

  function after(node, other) {
    return !other || (!node.contains(other) &&
      !!(other.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING));
  }

  function foldSection(section) {
    var heading = section.querySelector(":scope > h2");
    var details = document.createElement("details");
    var summary = document.createElement("summary");
    var hint = document.createElement("span");
    details.className = "pa-fold";
    hint.className = "pa-fold-hint";
    hint.textContent = "Folded on a small screen: tap to open.";
    section.insertBefore(details, heading);
    summary.appendChild(heading);
    summary.appendChild(hint);
    details.appendChild(summary);
    while (details.nextSibling) details.appendChild(details.nextSibling);
  }

  function fold() {
    if (window.innerWidth > FOLD_BELOW) return;
    var main = document.querySelector("main");
    if (!main || main.querySelector("details.pa-fold")) return;
    var findings = main.querySelector("table.pa-findings-table");
    var key = main.querySelector(".pa-key-chart");
    [].slice.call(main.querySelectorAll("section > h2")).forEach(function (heading) {
      var section = heading.parentElement;
      if (!after(section, findings) || !after(section, key)) return;
      if (section.getBoundingClientRect().height < FOLD_TALLER * window.innerHeight) return;
      foldSection(section);
    });
    openTarget();
  }

  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    var folded = target && target.closest("details.pa-fold");
    if (folded) { folded.open = true; target.scrollIntoView(); }
  }

  if (document.readyState === "complete") fold();
  else window.addEventListener("load", fold);
  window.addEventListener("hashchange", openTarget);
})();
