// Pečeť: the replay page. The step buttons load each step's fragment with htmx; this fits the
// board (drawn at 1920×1080) into its frame, plays the steps at a steady pace and takes the
// arrow keys and the space bar.
(function () {
  "use strict";
  var page = document.getElementById("replay");
  if (!page) return;
  var timer = null;
  var stepMs = Number(page.dataset.stepMs) || 2000;

  function fit() {
    var stage = document.querySelector(".rp-stage");
    var wrap = stage && stage.parentNode;
    if (!wrap) return;
    var scale = Math.min(wrap.clientWidth / 1920, wrap.clientHeight / 1080);
    if (!(scale > 0)) scale = 0.5;
    stage.style.setProperty("--rp-scale", String(scale));
    stage.style.setProperty("--rp-left", Math.max(0, (wrap.clientWidth - 1920 * scale) / 2) + "px");
    stage.style.setProperty("--rp-top", Math.max(0, (wrap.clientHeight - 1080 * scale) / 2) + "px");
  }
  function button(testid) {
    var b = document.querySelector('[data-testid="' + testid + '"]');
    return b && !b.disabled ? b : null;
  }
  function schedule() {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!page.classList.contains("playing")) return;
    timer = setTimeout(function () {
      timer = null;
      var next = button("replay-forward");
      if (next) next.click(); else setPlaying(false);
    }, stepMs);
  }
  function setPlaying(on) {
    page.classList.toggle("playing", on);
    if (on && !button("replay-forward")) {  // at the end: play from the start
      var first = button("replay-first");
      if (first) { first.click(); return; }
    }
    schedule();
  }

  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest(".rp-play")) setPlaying(!page.classList.contains("playing"));
  });
  document.addEventListener("keydown", function (evt) {
    if (evt.target.closest && evt.target.closest("input, select, textarea, summary")) return;
    var map = { ArrowRight: "replay-forward", ArrowLeft: "replay-back", Home: "replay-first", End: "replay-last" };
    if (map[evt.key]) {
      var b = button(map[evt.key]);
      if (b) b.click();
      evt.preventDefault();
    } else if (evt.key === " ") {
      setPlaying(!page.classList.contains("playing"));
      evt.preventDefault();
    }
  });
  // On a phone the rounds are one strip that scrolls sideways: keep the current one in it.
  function showCurrentRound() {
    var current = document.querySelector(".rp-rounds .current");
    var strip = current && current.parentNode;
    if (!strip || strip.scrollWidth <= strip.clientWidth) return;
    strip.scrollLeft = current.offsetLeft - strip.offsetLeft - (strip.clientWidth - current.offsetWidth) / 2;
  }
  document.addEventListener("htmx:afterSwap", function () { fit(); showCurrentRound(); schedule(); });
  window.addEventListener("resize", fit);
  fit();
  showCurrentRound();
})();
