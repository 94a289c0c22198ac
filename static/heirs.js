// Heirs of the Axis: the board's tokens walking from step to step, the phone's order-sheet
// draft, the countdown and the screen wake lock. Plain JS; the page templates load it, and
// htmx may load it again with every new fragment, so it runs its set-up only once.
(function () {
  "use strict";
  if (window.HeirsTable) { window.HeirsTable.refresh(); return; }

  // ---------------------------------------------------------------- board: moving tokens
  // The server sends the board again at every step of a round; each frame replaces the map,
  // so a token would jump. Remember where each heir stood before the frame and let it walk
  // from there (its CSS transition), and let a field's new colour fade in. During the show a
  // step's outcome waits for its heir to arrive: the new colour and a Sign just won come in
  // once the token has walked (heirs.css), with the step's log lines.
  var before = { tokens: {}, fills: {}, signs: {}, finds: {} };

  function remember() {
    before = { tokens: {}, fills: {}, signs: {}, finds: {} };
    // Not a copy kept from the frame before (it is gone from this one too): once is enough.
    document.querySelectorAll(".hx-board .hx-find-glyph:not(.leaving)").forEach(function (glyph) {
      before.finds[glyph.parentNode.dataset.field] = glyph.cloneNode(true);
    });
    document.querySelectorAll(".hx-board .hx-heir-token").forEach(function (t) {
      before.tokens[t.dataset.seat] = [t.style.getPropertyValue("--x"), t.style.getPropertyValue("--y")];
    });
    document.querySelectorAll(".hx-board .hx-field polygon").forEach(function (p) {
      before.fills[p.parentNode.dataset.field] = p.style.fill || "";
    });
    document.querySelectorAll(".hx-board .hx-heir").forEach(function (row) {
      before.signs[row.dataset.seat] = row.querySelectorAll(".hx-sign").length;
    });
  }

  // A discovery taken in this step (its "?" gone from the new frame) stays until the heir
  // has arrived, then fades (heirs.css).
  function keepTakenFinds(board) {
    if (!board.classList.contains("playing")) return;
    board.querySelectorAll(".hx-field").forEach(function (field) {
      var glyph = before.finds[field.dataset.field];
      if (!glyph || field.querySelector(".hx-find-glyph")) return;
      glyph.classList.add("leaving");
      field.appendChild(glyph);
    });
  }

  function markNewSigns(board) {
    board.querySelectorAll(".hx-heir").forEach(function (row) {
      var had = before.signs[row.dataset.seat];
      if (had === undefined) return;
      Array.prototype.slice.call(row.querySelectorAll(".hx-sign"), had).forEach(function (sign) {
        sign.classList.add("arriving");
      });
    });
  }

  function walk() {
    var board = document.querySelector(".hx-board");
    if (!board || board.classList.contains("replaying")) return;
    markNewSigns(board);
    keepTakenFinds(board);
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
  // The sheet's own fields (the action, and the version and match it was drawn at) are not
  // the player's draft: a restored draft never brings back an older sheet's version.
  var SHEET_FIELDS = { action: true, version: true, match: true };
  function readForm(form) {
    var draft = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || SHEET_FIELDS[el.name]) return;
      if ((el.type === "radio" || el.type === "checkbox")) draft[el.name + "=" + el.value] = el.checked;
      else draft[el.name] = el.value;
    });
    return draft;
  }
  function applyDraft(form, draft) {
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || SHEET_FIELDS[el.name]) return;
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
  // left at their part, and the sheet says what remains after the whole order. Returns
  // whether the heir will settle: the box ticked, a field nobody owns at the step's end, and
  // the people to pay for it.
  // A line's trades as the number field reads them ("1e1" is 10, not 1), whole and not
  // below 0: what the total counts and the summary says alike.
  function tradesOf(input) {
    var value = Number(input.value);
    return isFinite(value) && value > 0 ? Math.floor(value) : 0;
  }
  function budget(form) {
    var data;
    try { data = JSON.parse(form.dataset.budget || "null"); } catch (e) { data = null; }
    if (!data) return false;
    var left = {};
    Object.keys(data.purse).forEach(function (k) { left[k] = data.purse[k]; });
    if (data.market) {
      for (var n = 0; n < 2; n++) {
        var give = form.querySelector('[name="give_' + n + '"]');
        var get = form.querySelector('[name="get_' + n + '"]');
        var trades = form.querySelector('[name="trades_' + n + '"]');
        // H21: the Market trades what the heir can pay; the sheet says so, not just its total.
        var cut = form.querySelector('[data-trades-cut="' + n + '"]');
        if (cut) cut.hidden = true;
        if (!give || !get || !trades || !give.value || !get.value || give.value === get.value) continue;
        var wanted = tradesOf(trades);
        var done = Math.min(wanted, Math.floor(left[give.value] / data.market.give));
        if (cut && done < wanted) {
          cut.hidden = false;
          cut.textContent = data.summary.trades_cut.replace("%(n)s", done)
            .replace("%(wanted)s", wanted)
            .replace("%(give)s", give.options[give.selectedIndex].textContent);
        }
        left[give.value] -= done * data.market.give;
        left[get.value] += done * data.market.get;
      }
    }
    function affordable(cost) {
      return Object.keys(cost).every(function (k) { return (left[k] || 0) >= cost[k]; });
    }
    function pay(cost) { Object.keys(cost).forEach(function (k) { left[k] -= cost[k]; }); }
    function gainOf(input) {
      try { return JSON.parse(input.dataset.gain || "{}"); } catch (e) { return {}; }
    }
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
        if (input.checked) chosen = input;
      });
      if (!chosen) return;
      pay(costOf(chosen));
      // H11.4: a Reinforcement's soldiers and people arrive with the trick (part 2).
      var gain = gainOf(chosen);
      Object.keys(gain).forEach(function (k) { left[k] += gain[k]; });
    }
    part("trick");
    var settle = form.querySelector('input[name="settle"]');
    var chosen = form.querySelector('input[name="expedition"]:checked');
    var kind = chosen ? chosen.value.split(":")[0] : "stay";
    var field = chosen ? chosen.closest(".hx-target").dataset.field : null;
    // An attack that wins ends on a field the battle makes the heir's: nothing to settle
    // there; a Shadow path goes one field further, and the heir settles where it ends.
    var shadow = form.querySelector('input[name="trick"][value="shadow_path"]:checked')
      && form.querySelector('select[name="field_shadow_path"]:not(:disabled)');
    var walked = kind === "move" || kind === "scout" ? [field] : [];
    if (shadow && shadow.value) { field = shadow.value; kind = "shadow"; walked.push(field); }
    var need = kind !== "attack" && field in data.settle_costs ? data.settle_costs[field] : null;
    var range = form.querySelector('input[name="recruit"]');
    if (range) {
      var per = data.people_per_soldier;
      var most = Math.max(0, Math.min(data.cap, Math.floor(left.people / per)));
      range.max = String(most);
      range.disabled = most === 0;
      if (+range.value > most) range.value = String(most);
      var recruits = +range.value || 0;
      left.people -= recruits * per;
      left.soldiers += recruits;
      // H6: the retinue pays before the heir settles (part 7), so recruiting eats into the
      // people a settling needs; say how many soldiers still leave room for it.
      var hint = form.querySelector('[data-testid="recruit-hint"]');
      if (hint) {
        var keep = need !== null && settle && settle.checked
          ? Math.max(0, Math.min(most, Math.floor((left.people + recruits * per - need) / per))) : most;
        hint.textContent = keep < most
          ? data.can_pay_and_settle.replace("%(m)s", most).replace("%(field)s", field).replace("%(k)s", keep)
          : data.can_pay.replace("%(m)s", most);
      }
    }
    part("build");
    part("learn");
    var warning = form.querySelector('[data-testid="settle-warning"]');
    var short = settle && settle.checked && need !== null && left.people < need;
    if (warning) {
      warning.hidden = !short;
      warning.textContent = short ? data.no_settle.replace("%(field)s", field)
        .replace("%(need)s", need).replace("%(left)s", left.people) : "";
    }
    var settles = !!(settle && settle.checked && need !== null && !short);
    if (settles) left.people -= need;
    var after = form.querySelector('[data-testid="after-order"]');
    if (after) {
      // Each count in the form its number takes (data.amounts: a sentence per plural
      // category of the page's language, the categories the browser's rules name).
      var plural = new Intl.PluralRules(document.documentElement.lang || "en");
      var rest = ["soldiers", "people", "gold", "knowledge"].map(function (k) {
        var forms = data.amounts[k];
        return (forms[plural.select(left[k])] || forms.other).replace("%(num)s", left[k]);
      }).join(" · ");
      // What only the pass can tell (a battle, a find's contents, Bribery's haul) is named.
      var trick = form.querySelector('input[name="trick"]:checked');
      var unknown = [];
      var attack = form.querySelector('input[name="expedition"][value^="attack:"]:checked');
      if (attack) unknown.push(data.unknown.attack);
      if (walked.some(function (f) { return data.finds.indexOf(f) >= 0; })) unknown.push(data.unknown.find);
      if (trick && trick.value === "bribery") unknown.push(data.unknown.bribery);
      // A settling the people will not pay for is skipped: said here too, in sight, and not
      // only in the expedition's part (folded, it hides its warning).
      var skipped = short ? " · " + data.settle_skipped : "";
      after.textContent = data.after.replace("%(rest)s", rest) + (unknown.length ? " (" + unknown.join("; ") + ")" : "") + skipped;
      after.dataset.left = JSON.stringify(left);
    }
    return settles;
  }
  // Each part's summary line tells what is drafted in it, so a folded part still shows it;
  // the expedition's says "settle" only where the heir will settle (``settles``, from
  // ``budget``): the box is a standing instruction, ticked on a field the heir owns too.
  function summaries(form, settles) {
    var data;
    try { data = JSON.parse(form.dataset.budget || "null"); } catch (e) { data = null; }
    if (!data) return;
    function labelOf(name) {
      var input = form.querySelector('input[name="' + name + '"]:checked');
      var label = input && input.closest("label");
      var text = label && (label.querySelector("[data-summary]") || label.querySelector("b, span"));
      return text ? text.textContent.trim() : "";
    }
    function put(part, text) {
      var box = form.querySelector('[data-part="' + part + '"] [data-choice]');
      if (box) box.textContent = text;
    }
    var expedition = [labelOf("expedition")];
    var retreat = form.querySelector('input[name="retreat"]');
    if (settles) expedition.push(data.summary.settle);
    if (retreat && retreat.checked) expedition.push(data.summary.retreat);
    put("expedition", expedition.join(" · "));
    var trick = form.querySelector('input[name="trick"]:checked');
    var trickText = labelOf("trick");
    if (trick && trick.value) {
      var select = form.querySelector('select[name="target_' + trick.value + '"], select[name="field_' + trick.value + '"]');
      if (select && select.selectedIndex >= 0) trickText += " → " + select.options[select.selectedIndex].textContent;
    }
    put("trick", trickText);
    var range = form.querySelector('input[name="recruit"]');
    put("retinue", data.summary.recruit.replace("%(n)s", range ? range.value : "0"));
    put("city", labelOf("build"));
    put("heir", labelOf("learn"));
    var trades = [];
    for (var n = 0; n < 2; n++) {
      var give = form.querySelector('[name="give_' + n + '"]');
      var get = form.querySelector('[name="get_' + n + '"]');
      var count = form.querySelector('[name="trades_' + n + '"]');
      if (!give || !get || !count || !give.value || !get.value || !(tradesOf(count) > 0)) continue;
      trades.push(data.summary.trade.replace("%(n)s", tradesOf(count))
        .replace("%(give)s", give.options[give.selectedIndex].textContent)
        .replace("%(get)s", get.options[get.selectedIndex].textContent));
    }
    put("market", trades.length ? trades.join(", ") : data.summary.no_trades);
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
      // The field the player chose is gone with the expedition's end: said, not swapped
      // for another without a word (until the player chooses again).
      var moved = select.parentElement.querySelector("[data-field-moved]");
      if (!moved) return;
      if (!select.dataset.watched) {
        select.dataset.watched = "1";
        select.addEventListener("change", function () {
          select.dataset.chosen = "1";
          moved.hidden = true;
        });
      }
      if (select.dataset.chosen && list.indexOf(keep) < 0) {
        delete select.dataset.chosen;
        moved.hidden = false;
      }
    });
  }
  // A Market line trades one resource for another: the resource given is not offered to
  // get, nor the one got to give (the rules refuse such a line, and the sheet offered it).
  function marketLines(form) {
    for (var n = 0; n < 2; n++) {
      var give = form.querySelector('[name="give_' + n + '"]');
      var get = form.querySelector('[name="get_' + n + '"]');
      if (!give || !get) continue;
      if (give.value && give.value === get.value) get.value = "";
      [[give, get], [get, give]].forEach(function (pair) {
        Array.prototype.forEach.call(pair[0].options, function (option) {
          option.disabled = option.value !== "" && option.value === pair[1].value;
        });
      });
    }
  }
  function syncSheet(form) {
    marketLines(form);
    shadowFields(form);
    summaries(form, budget(form));
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
      if (saved) {
        saved = JSON.parse(saved);
        applyDraft(form, saved);
        // Another seat's seal re-renders the sheet: the part being composed stays open.
        if (saved[OPEN]) {
          form.querySelectorAll("details.hx-part").forEach(function (d) {
            d.open = d.dataset.part === saved[OPEN];
          });
        }
      }
    } catch (e) { /* no storage */ }
    // The parts share a name, and the browser closes a named <details> inserted while the
    // old sheet's open one is still in the document: a new frame may arrive all folded.
    var parts = form.querySelectorAll("details.hx-part");
    if (parts.length && !form.querySelector("details.hx-part[open]")) parts[0].open = true;
    syncSheet(form);
    function save() {
      syncSheet(form);
      try {
        if (!key) return;
        var draft = readForm(form);
        var open = form.querySelector("details.hx-part[open]");
        draft[OPEN] = open ? open.dataset.part : "";
        localStorage.setItem(key, JSON.stringify(draft));
      } catch (e) { /* fine */ }
    }
    form.addEventListener("change", save);
    form.addEventListener("input", save);
    form.addEventListener("toggle", save, true);  // toggle does not bubble
    form.addEventListener("submit", function () {
      try {
        if (!key) return;
        // Drafts of this seat's earlier rounds have served their purpose.
        var prefix = key.slice(0, key.lastIndexOf(":") + 1);
        draftKeys(prefix).forEach(function (k) { if (k !== key) localStorage.removeItem(k); });
      } catch (e) { /* fine */ }
    });
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

  // A sheet's draft is kept per round ("heirs:<room>:<seat>:<match>:<round>"), with the part
  // left open under OPEN; a seal clears the earlier rounds' drafts.
  var OPEN = "__open";
  function draftKeys(prefix) {
    var keys = [];
    for (var i = 0; i < localStorage.length; i++) {
      var k = localStorage.key(i);
      if (k && k.indexOf(prefix) === 0) keys.push(k);
    }
    return keys;
  }

  // ---------------------------------------------------------------- wake lock
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

  // ---------------------------------------------------------------- phone: choosing a dynasty
  // Another seat's seal redraws the setup form: the colour and character this phone chose
  // stay chosen (the colour unless another seat took it meanwhile).
  var SETUP_CHOICES = ["colour", "character"];
  function setupDynasty(form) {
    if (form.dataset.hxReady) return;
    form.dataset.hxReady = "1";
    var key = form.dataset.draftKey;
    try {
      var saved = JSON.parse(localStorage.getItem(key) || "{}");
      // A choice tapped on this form before it was set up here (a frame swapped it in and a
      // tap came before this ran) is the player's own, the server's tick is not: kept.
      var tapped = false;
      SETUP_CHOICES.forEach(function (name) {
        var checked = form.querySelector('input[name="' + name + '"]:checked');
        if (checked && !checked.defaultChecked) { saved[name] = checked.value; tapped = true; }
      });
      if (tapped) localStorage.setItem(key, JSON.stringify(saved));
      SETUP_CHOICES.forEach(function (name) {
        form.querySelectorAll('input[name="' + name + '"]').forEach(function (input) {
          if (input.value === saved[name]) input.checked = true;
        });
      });
      // The colour this phone chose was taken meanwhile: no other is ticked in its place
      // (a tap on "Keep" would seal a colour nobody chose); the player is told and chooses.
      var colours = Array.prototype.slice.call(form.querySelectorAll('input[name="colour"]'));
      var offered = function (colour) {
        return colours.some(function (input) { return input.value === colour; });
      };
      if (saved.colour && !offered(saved.colour)) {
        colours.forEach(function (input) { input.checked = false; });
        var taken = form.querySelector("[data-testid=colour-taken]");
        if (taken) taken.hidden = false;
      }
      // The colour ticked for a phone that chose none went to another seat: the next free
      // one is ticked in its place, which the player is told (until a tap of their own),
      // rather than sealing a colour changed under their eyes.
      var shown = JSON.parse(localStorage.getItem(key + ":ticked") || "{}");
      if (!saved.colour && shown.colour && (shown.moved || !offered(shown.colour))) {
        var moved = form.querySelector("[data-testid=colour-moved]");
        if (moved) moved.hidden = false;
        shown.moved = true;
      }
      var ticked = form.querySelector('input[name="colour"]:checked');
      if (ticked) shown.colour = ticked.value;
      localStorage.setItem(key + ":ticked", JSON.stringify(shown));
    } catch (e) { /* no storage: the first choices stay */ }
  }
  // Heard on the document, not on each form: a form swapped in by a frame is set up a moment
  // later (refresh), and a tap meanwhile was lost, its colour not kept as the player's choice.
  document.addEventListener("change", function (evt) {
    var form = evt.target.closest && evt.target.closest("form.hx-setup-form");
    if (!form || !form.dataset.draftKey) return;
    var taken = form.querySelector("[data-testid=colour-taken]");
    if (taken && form.querySelector('input[name="colour"]:checked')) taken.hidden = true;
    var moved = form.querySelector("[data-testid=colour-moved]");
    if (moved) moved.hidden = true;
    var draft = {};
    SETUP_CHOICES.forEach(function (name) {
      var checked = form.querySelector('input[name="' + name + '"]:checked');
      if (checked) draft[name] = checked.value;
    });
    try { localStorage.setItem(form.dataset.draftKey, JSON.stringify(draft)); } catch (e) { /* fine */ }
  });

  function refresh() {
    document.querySelectorAll("form.hx-setup-form").forEach(setupDynasty);
    document.querySelectorAll("form.hx-orders").forEach(setupOrders);
    updateWakeLock();
  }

  document.addEventListener("htmx:wsBeforeMessage", remember);
  document.addEventListener("htmx:wsAfterMessage", function () { walk(); setTimeout(refresh, 0); });
  document.addEventListener("visibilitychange", updateWakeLock);
  window.HeirsTable = { refresh: refresh };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", refresh);
  else refresh();
})();
