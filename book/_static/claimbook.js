/* The book's own script: a table wider than its box says so.
   A table scrolls sideways in its own box rather than widen the page; where it is wider than the
   box (on a phone, mostly), a line before it says that the table scrolls, and goes when the box
   is wide enough again. */
(function () {
  "use strict";
  var CUE = "claimbook-scroll-cue";

  function scrollBox(table) {
    for (var element = table.parentElement; element && element !== document.body; element = element.parentElement) {
      var overflow = getComputedStyle(element).overflowX;
      if (overflow === "auto" || overflow === "scroll") { return element; }
    }
    return null;
  }

  function cueFor(box) {
    var cue = box.previousElementSibling;
    if (cue && cue.classList.contains(CUE)) { return cue; }
    cue = document.createElement("p");
    cue.className = CUE;
    cue.setAttribute("aria-hidden", "true");  // the box itself is a labelled region a reader can scroll
    cue.textContent = "The table is wider than the page: scroll it sideways for more columns \u2192";
    box.parentElement.insertBefore(cue, box);
    return cue;
  }

  function mark(box) {
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls) {
      cueFor(box).hidden = false;
    } else if (box.previousElementSibling && box.previousElementSibling.classList.contains(CUE)) {
      box.previousElementSibling.hidden = true;
    }
    box.classList.toggle("claimbook-scrolls", scrolls);
  }

  function start() {
    var boxes = [];
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      var box = scrollBox(table);
      if (box && boxes.indexOf(box) < 0) { boxes.push(box); }
    });
    boxes.forEach(mark);
    if (window.ResizeObserver) {
      // a box inside closed <details> has no width until it opens: it is measured again then
      var observer = new ResizeObserver(function (entries) {
        entries.forEach(function (entry) { mark(entry.target); });
      });
      boxes.forEach(function (box) { observer.observe(box); });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
