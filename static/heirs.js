// Heirs of the Axis: the board's tokens walking from step to step, the phone's order-sheet
// draft, the countdown and the screen wake lock. Plain JS; the page templates load it, and
// htmx may load it again with every new fragment, so it runs its set-up only once.
(function () {
  "use strict";
  if (window.HeirsTable) { window.HeirsTable.refresh(); return; }

  function hoistStyles() {
    if (document.head.querySelector('link[data-heirs-css]')) return;
    var link = document.createElement("link");
    link.rel = "stylesheet"; link.href = "/static/heirs.css"; link.dataset.heirsCss = "1";
    document.head.appendChild(link);
  }

  // ---------------------------------------------------------------- board: moving tokens
  // The server sends the board again at every step of a round; each frame replaces the map,
  // so a token would jump. Remember where each heir stood before the frame and let it walk
  // from there (its CSS transition), and let a field's new colour fade in.
  var before = { tokens: {}, fills: {} };

  function remember() {
    before = { tokens: {}, fills: {} };
    document.querySelectorAll(".hx-board .hx-heir-token").forEach(function (t) {
      before.tokens[t.dataset.seat] = [t.style.getPropertyValue("--x"), t.style.getPropertyValue("--y")];
    });
    document.querySelectorAll(".hx-board .hx-field polygon").forEach(function (p) {
      before.fills[p.parentNode.dataset.field] = p.style.fill || "";
    });
  }

  function walk() {
    var board = document.querySelector(".hx-board");
    if (!board || board.classList.contains("replaying")) return;
    var moved = [];
    board.querySelectorAll(".hx-heir-token").forEach(function (t) {
      var old = before.tokens[t.dataset.seat];
      var x = t.style.getPropertyValue("--x"), y = t.style.getPropertyValue("--y");
      if (!old || (old[0] === x && old[1] === y)) return;
      t.style.transition = "none";
      t.style.setProperty("--x", old[0]); t.style.setProperty("--y", old[1]);
      moved.push([t, x, y]);
    });
    board.querySelectorAll(".hx-field polygon").forEach(function (p) {
      var old = before.fills[p.parentNode.dataset.field];
      var now = p.style.fill || "";
      if (old === undefined || old === now) return;
      p.style.transition = "none"; p.style.fill = old;
      moved.push([p, null, now]);
    });
    if (!moved.length) return;
    void board.getBoundingClientRect();  // apply the old places before the transition
    moved.forEach(function (m) {
      m[0].style.transition = "";
      if (m[1] === null) { m[0].style.fill = m[2]; return; }
      m[0].style.setProperty("--x", m[1]); m[0].style.setProperty("--y", m[2]);
    });
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
  // The sheet's budget, in the order a step pays (H6): the Market trades first, then the
  // trick, the retinue (people per soldier), the city (gold) and the heir (knowledge); the
  // heir settles last where its expedition ends (H8.2). Choices are enabled against what is
  // left at their part, and the sheet says what remains after the whole order.
  function budget(form) {
    var data;
    try { data = JSON.parse(form.dataset.budget || "null"); } catch (e) { data = null; }
    if (!data) return;
    var left = {};
    Object.keys(data.purse).forEach(function (k) { left[k] = data.purse[k]; });
    if (data.market) {
      for (var n = 0; n < 2; n++) {
        var give = form.querySelector('[name="give_' + n + '"]');
        var get = form.querySelector('[name="get_' + n + '"]');
        var trades = form.querySelector('[name="trades_' + n + '"]');
        if (!give || !get || !trades || !give.value || !get.value || give.value === get.value) continue;
        var wanted = Math.max(0, parseInt(trades.value, 10) || 0);
        var done = Math.min(wanted, Math.floor(left[give.value] / data.market.give));
        left[give.value] -= done * data.market.give;
        left[get.value] += done * data.market.get;
      }
    }
    function affordable(cost) {
      return Object.keys(cost).every(function (k) { return (left[k] || 0) >= cost[k]; });
    }
    function pay(cost) { Object.keys(cost).forEach(function (k) { left[k] -= cost[k]; }); }
    function costOf(input) {
      if (input.dataset.cost) { try { return JSON.parse(input.dataset.cost); } catch (e) { return null; } }
      if (input.dataset.costGold !== undefined) return input.dataset.costGold === "" ? null : { gold: +input.dataset.costGold };
      if (input.dataset.costKnowledge !== undefined) return input.dataset.costKnowledge === "" ? null : { knowledge: +input.dataset.costKnowledge };
      return {};
    }
    // One part after another: each radio group is enabled against what is left by then.
    function part(name) {
      var chosen = null;
      form.querySelectorAll('input[name="' + name + '"]').forEach(function (input) {
        if (!input.value) return;
        var cost = costOf(input);
        var can = cost !== null && affordable(cost);
        input.disabled = !can;
        var label = input.closest(".hx-choice");
        if (label) label.classList.toggle("off", !can);
        if (!can && input.checked) {
          input.checked = false;
          var none = form.querySelector('input[name="' + name + '"][value=""]');
          if (none) none.checked = true;
        }
        if (input.checked) chosen = cost;
      });
      if (chosen) pay(chosen);
    }
    part("trick");
    var range = form.querySelector('input[name="recruit"]');
    if (range) {
      var most = Math.max(0, Math.min(data.cap, Math.floor(left.people / data.people_per_soldier)));
      range.max = String(most);
      range.disabled = most === 0;
      if (+range.value > most) range.value = String(most);
      var recruits = +range.value || 0;
      left.people -= recruits * data.people_per_soldier;
      left.soldiers += recruits;
    }
    part("build");
    part("learn");
    var warning = form.querySelector('[data-testid="settle-warning"]');
    var settle = form.querySelector('input[name="settle"]');
    var chosen = form.querySelector('input[name="expedition"]:checked');
    var field = chosen ? chosen.closest(".hx-target").dataset.field : null;
    var need = field in data.settle_costs ? data.settle_costs[field] : null;
    var short = settle && settle.checked && need !== null && left.people < need;
    if (warning) {
      warning.hidden = !short;
      warning.textContent = short ? data.no_settle.replace("%(field)s", field)
        .replace("%(need)s", need).replace("%(left)s", left.people) : "";
    }
    if (settle && settle.checked && need !== null && !short) left.people -= need;
    var after = form.querySelector('[data-testid="after-order"]');
    if (after) {
      var rest = ["soldiers", "people", "gold", "knowledge"].map(function (k) {
        return left[k] + " " + data.names[k];
      }).join(" · ");
      after.textContent = data.after.replace("%(rest)s", rest);
    }
  }
  // H7.7: the Shadow path's extra step starts where the expedition ends, so the fields it
  // offers follow the expedition chosen on the sheet.
  function shadowFields(form) {
    var chosen = form.querySelector('input[name="expedition"]:checked');
    if (!chosen) return;
    var parts = chosen.value.split(":");
    form.querySelectorAll("select[data-after]").forEach(function (select) {
      var after;
      try { after = JSON.parse(select.dataset.after); } catch (e) { return; }
      var list = after[parts[0]];
      if (list && !Array.isArray(list)) list = list[parts[1]];
      list = list || [];
      var keep = select.value;
      select.innerHTML = "";
      list.forEach(function (field) {
        var option = document.createElement("option");
        option.value = field; option.textContent = field;
        select.appendChild(option);
      });
      if (list.indexOf(keep) >= 0) select.value = keep;
      select.disabled = list.length === 0;
    });
  }
  function syncSheet(form) {
    shadowFields(form);
    budget(form);
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
    document.querySelectorAll("form.hx-orders").forEach(setupOrders);
    updateCountdowns();
    updateWakeLock();
  }

  document.addEventListener("htmx:wsBeforeMessage", remember);
  document.addEventListener("htmx:wsAfterMessage", function () { walk(); setTimeout(refresh, 0); });
  document.addEventListener("visibilitychange", updateWakeLock);
  setInterval(updateCountdowns, 1000);
  window.HeirsTable = { refresh: refresh };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", refresh);
  else refresh();
})();
