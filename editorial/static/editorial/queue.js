// Keyboard shortcuts for the review queue: j/k move between rows, o opens the
// row's item, p/f/r press the row's publish/feature/reject button (the same
// one-click buttons a mouse uses; nothing here decides anything by itself).
(function () {
  "use strict";
  function rows() { return Array.from(document.querySelectorAll("#result_list tbody tr")); }
  function typing(target) { return target.closest("input, textarea, select, [contenteditable]"); }
  var current = -1;
  function select(index) {
    var all = rows();
    if (!all.length) return;
    current = Math.max(0, Math.min(all.length - 1, index));
    all.forEach(function (row, i) { row.classList.toggle("editorial-current", i === current); });
    all[current].setAttribute("tabindex", "-1");
    all[current].focus({ preventScroll: false });
  }
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    if (!document.getElementById("result_list")) return;
    var key = event.key;
    if (key === "j") { select(current + 1); event.preventDefault(); return; }
    if (key === "k") { select(current - 1); event.preventDefault(); return; }
    var row = rows()[current];
    if (!row) return;
    if (key === "o" || key === "Enter") {
      var link = row.querySelector("th a, td a");
      if (link) { link.click(); event.preventDefault(); }
      return;
    }
    var button = row.querySelector('button[data-key="' + key + '"]');
    if (button) { button.click(); event.preventDefault(); }
  });
})();
