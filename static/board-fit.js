// Pečeť: the board is drawn for 1920×1080, read from the sofa. A smaller screen (a 720p TV, a
// laptop) shows the same board, zoomed out to fit: the page is laid out at 1920×1080 or at the
// screen's own shape around it, never clipped. Loaded before the page's body, not deferred, so
// that the first frame is already the right size.
(function () {
  "use strict";
  var root = document.documentElement;
  // Without CSS zoom the board keeps its own size (the lengths divided by the zoom would
  // make it larger than the screen).
  if (!(window.CSS && CSS.supports && CSS.supports("zoom", "0.5"))) return;
  function fit() {
    var zoom = Math.min(1, window.innerWidth / 1920, window.innerHeight / 1080);
    if (!(zoom > 0)) zoom = 1;
    root.style.setProperty("--board-zoom", String(zoom));
  }
  fit();
  window.addEventListener("resize", fit);
})();
