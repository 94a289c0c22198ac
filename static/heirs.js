// Heirs of the Axis: the board's paced playback of a round, the phone's order-sheet draft,
// the countdown and the screen wake lock. Plain JS; the page templates load it, and htmx may
// load it again with every new fragment, so it runs its set-up only once.
(function () {
  "use strict";
  if (window.HeirsTable) { window.HeirsTable.refresh(); return; }

  var STEP_MS = 1400;

  function hoistStyles() {
    if (document.head.querySelector('link[data-heirs-css]')) return;
    var link = document.createElement("link");
    link.rel = "stylesheet"; link.href = "/static/heirs.css"; link.dataset.heirsCss = "1";
    document.head.appendChild(link);
  }

  // ---------------------------------------------------------------- board playback
  var play = { key: null, index: 0, timer: null };

  function tokenOffset(seat) {
    var angle = (Number(seat) * 60 + 210) * Math.PI / 180;
    return [Math.cos(angle) * 11, Math.sin(angle) * 9];
  }
  function placeToken(token, field, xy) {
    var spot = xy[field];
    if (!spot) return;
    var off = tokenOffset(token.dataset.seat);
    token.style.setProperty("--x", (spot[0] + off[0]) + "px");
    token.style.setProperty("--y", (spot[1] + off[1]) + "px");
  }
  function fillField(board, field, colour) {
    var g = board.querySelector('.hx-field[data-field="' + field + '"] polygon');
    if (g) g.style.fill = colour || "";
  }
  function boardData(board) {
    var node = board.querySelector(".hx-playback-data");
    try { return node ? JSON.parse(node.textContent) : null; } catch (e) { return null; }
  }
  function doneKey(key) { return "heirs_done_" + key; }
  function isDone(key) { try { return !!sessionStorage.getItem(doneKey(key)); } catch (e) { return false; } }
  function markDone(key) { try { sessionStorage.setItem(doneKey(key), "1"); } catch (e) { /* fine */ } }

  // Draw the board as it stood after `upto` steps of the newest resolution.
  function drawUpTo(board, data, upto) {
    var tokens = board.querySelectorAll(".hx-heir-token");
    var playing = upto < data.steps.length;
    board.classList.toggle("playing", playing);
    tokens.forEach(function (t) {
      var field = t.dataset.field;
      if (playing && data.pre_position[t.dataset.seat]) field = data.pre_position[t.dataset.seat];
      placeToken(t, field, data.xy);
      t.classList.remove("active");
    });
    board.querySelectorAll(".hx-field").forEach(function (g) {
      g.classList.remove("flash", "battle");
      var poly = g.querySelector("polygon");
      if (poly) poly.style.fill = g.dataset.fill || "";
    });
    if (playing) {
      Object.keys(data.pre_fill).forEach(function (field) { fillField(board, field, data.pre_fill[field]); });
    }
    var active = null;
    for (var i = 0; i < Math.min(upto, data.steps.length); i++) {
      var s = data.steps[i];
      if (s.kind === "step") active = s.seat;
      if (!playing) continue;
      if ((s.kind === "move" || s.kind === "shadow_path" || s.kind === "retreat") && s.to) {
        var token = board.querySelector('.hx-heir-token[data-seat="' + s.seat + '"]');
        if (token) placeToken(token, s.to, data.xy);
      }
      if ((s.kind === "settle" || s.kind === "conquer") && s.colour) fillField(board, s.field, s.colour);
    }
    var last = upto > 0 && playing ? data.steps[upto - 1] : null;
    if (last && last.field) {
      var g = board.querySelector('.hx-field[data-field="' + last.field + '"]');
      if (g) g.classList.add(last.kind === "battle" ? "battle" : "flash");
    }
    board.querySelectorAll(".hx-heir").forEach(function (li) {
      li.classList.toggle("active", playing && String(active) === li.dataset.seat);
    });
    if (playing && active !== null) {
      var tok = board.querySelector('.hx-heir-token[data-seat="' + active + '"]');
      if (tok) tok.classList.add("active");
    }
    var items = board.querySelectorAll(".hx-playlog li");
    items.forEach(function (li, n) {
      li.hidden = playing && n >= upto;
      li.classList.toggle("current", playing && n === upto - 1);
    });
    var current = board.querySelector(".hx-playlog li.current");
    if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest" });
  }

  function tick() {
    play.timer = null;
    var board = document.querySelector(".hx-board");
    if (!board) return;
    var data = boardData(board);
    if (!data || board.dataset.playKey !== play.key) return;
    if (board.dataset.paused) { schedule(); return; }  // the host paused: hold the playback
    play.index += 1;
    if (play.index >= data.steps.length) { play.index = data.steps.length; markDone(play.key); }
    drawUpTo(board, data, play.index);
    if (play.index < data.steps.length) schedule();
  }
  function schedule() { if (!play.timer) play.timer = setTimeout(tick, STEP_MS); }

  function setupBoard() {
    var board = document.querySelector(".hx-board");
    if (!board) return;
    var data = boardData(board);
    if (!data) return;
    var key = board.dataset.playKey;
    if (!data.steps.length || isDone(key)) {
      if (play.key === key) { play.index = data.steps.length; }
      drawUpTo(board, data, data.steps.length);
      return;
    }
    if (play.key !== key) {
      if (play.timer) { clearTimeout(play.timer); play.timer = null; }
      play.key = key; play.index = 0;
    }
    drawUpTo(board, data, play.index);
    schedule();
  }
  function skip() {
    var board = document.querySelector(".hx-board");
    if (!board) return;
    var data = boardData(board);
    if (!data) return;
    if (play.timer) { clearTimeout(play.timer); play.timer = null; }
    play.key = board.dataset.playKey; play.index = data.steps.length;
    markDone(play.key);
    drawUpTo(board, data, play.index);
  }

  // ---------------------------------------------------------------- phone: draft, targets
  function readForm(form) {
    var draft = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name === "action") return;
      if ((el.type === "radio" || el.type === "checkbox")) draft[el.name + "=" + el.value] = el.checked;
      else draft[el.name] = el.value;
    });
    return draft;
  }
  function applyDraft(form, draft) {
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name === "action") return;
      if (el.type === "radio" || el.type === "checkbox") {
        var key = el.name + "=" + el.value;
        if (key in draft && !(el.disabled && draft[key])) el.checked = !!draft[key];
      } else if (el.name in draft) {
        el.value = draft[el.name];
      }
    });
  }
  function syncSheet(form) {
    var range = form.querySelector('input[name="recruit"]');
    var out = form.querySelector(".hx-recruit-out");
    if (range && out) out.textContent = range.value;
    var chosen = form.querySelector('input[name="expedition"]:checked');
    var field = chosen ? chosen.closest(".hx-target").dataset.field : null;
    form.querySelectorAll(".hx-excerpt .hx-field").forEach(function (g) {
      g.classList.toggle("chosen", g.dataset.field === field);
    });
    form.querySelectorAll(".hx-trick").forEach(function (box) {
      var radio = box.querySelector('input[name="trick"]');
      box.classList.toggle("chosen", !!(radio && radio.checked));
    });
  }
  function setupOrders(form) {
    if (form.dataset.hxReady) return;
    form.dataset.hxReady = "1";
    var key = form.dataset.draftKey;
    try {
      var saved = key && localStorage.getItem(key);
      if (saved) applyDraft(form, JSON.parse(saved));
    } catch (e) { /* no storage */ }
    syncSheet(form);
    function save() {
      syncSheet(form);
      try { if (key) localStorage.setItem(key, JSON.stringify(readForm(form))); } catch (e) { /* fine */ }
    }
    form.addEventListener("change", save);
    form.addEventListener("input", save);
    // Tap a field of the map excerpt: pick its expedition (again: the next kind on it).
    form.querySelectorAll(".hx-excerpt .hx-field").forEach(function (g) {
      g.addEventListener("click", function () {
        var options = form.querySelectorAll('.hx-target[data-field="' + g.dataset.field + '"] input');
        if (!options.length) return;
        var at = -1;
        options.forEach(function (o, n) { if (o.checked) at = n; });
        options[(at + 1) % options.length].checked = true;
        save();
      });
    });
  }

  // ---------------------------------------------------------------- countdown, wake lock
  function updateCountdowns() {
    document.querySelectorAll(".hx-countdown").forEach(function (el) {
      var left;
      if (el.dataset.deadline) left = Math.max(0, Math.round((Date.parse(el.dataset.deadline) - Date.now()) / 1000));
      else if (el.dataset.left) left = Math.round(Number(el.dataset.left));
      else { el.textContent = ""; return; }
      var m = Math.floor(left / 60), s = left % 60;
      el.textContent = "⏱ " + m + ":" + (s < 10 ? "0" : "") + s;
      el.classList.toggle("urgent", left <= 10);
    });
  }
  var wakeLock = null;
  function wantWake() { return !!document.querySelector("form.hx-orders, form.hx-setup-form"); }
  function updateWakeLock() {
    if (!("wakeLock" in navigator)) return;
    if (wantWake() && !wakeLock && document.visibilityState === "visible") {
      navigator.wakeLock.request("screen").then(function (lock) {
        wakeLock = lock;
        lock.addEventListener("release", function () { wakeLock = null; });
      }).catch(function () { /* not allowed now */ });
    } else if (!wantWake() && wakeLock) {
      wakeLock.release().catch(function () {}); wakeLock = null;
    }
  }

  function refresh() {
    hoistStyles();
    setupBoard();
    document.querySelectorAll("form.hx-orders").forEach(setupOrders);
    updateCountdowns();
    updateWakeLock();
  }

  document.addEventListener("htmx:wsAfterMessage", function () { setTimeout(refresh, 0); });
  document.addEventListener("visibilitychange", updateWakeLock);
  document.addEventListener("click", function (evt) {
    if (evt.target.closest && evt.target.closest(".hx-skip")) skip();
  });
  setInterval(updateCountdowns, 1000);
  window.HeirsTable = { refresh: refresh, skip: skip, state: play };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", refresh);
  else refresh();
})();
