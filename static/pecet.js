// Pečeť: the little plain JS the pages need (htmx does the rest).
(function () {
  "use strict";
  var body = document.body;

  // ---------------------------------------------------------------- seat token fallback
  function seatKey(code) { return "pecet_seat_" + code; }
  function remember() {
    var code = body.dataset.seatCode, token = body.dataset.seatToken;
    if (code && token) {
      try { localStorage.setItem(seatKey(code), token); } catch (e) { /* private mode */ }
    }
  }
  function restoreOrForget() {
    try {
      if (body.dataset.forgetSeat) { localStorage.removeItem(seatKey(body.dataset.forgetSeat)); return; }
      var code = body.dataset.restoreCode;
      if (!code) return;
      var token = localStorage.getItem(seatKey(code));
      var form = document.getElementById("restore-form");
      if (token && form) { form.elements.token.value = token; form.submit(); }
    } catch (e) { /* no storage: nothing to restore */ }
  }

  // ---------------------------------------------------------------- phone forms
  function setupTakeForm(form) {
    var count = parseInt(form.dataset.takeCount || "2", 10);
    var boxes = Array.prototype.slice.call(form.querySelectorAll('input[name="slot"]'));
    var submit = form.querySelector('button[type="submit"]');
    // data-one-per: at most one tick in each such part of the form (Legions' five-location
    // route, G8.3: one legion from each of 2 locations); a second tick in a part takes the
    // place of the first, as the form's hint says, rather than a pair the server refuses.
    var onePer = form.dataset.onePer;
    function update(evt) {
      var ticked = evt && evt.target && evt.target.checked ? evt.target : null;
      var part = ticked && onePer ? ticked.closest(onePer) : null;
      if (part) {
        part.querySelectorAll('input[name="slot"]').forEach(function (b) {
          if (b !== ticked) b.checked = false;
        });
      }
      var checked = boxes.filter(function (b) { return b.checked; }).length;
      boxes.forEach(function (b) {
        var sameSpot = onePer && b.closest(onePer) && b.closest(onePer).querySelector('input[name="slot"]:checked');
        b.disabled = !b.checked && checked >= count && !sameSpot;
      });
      if (submit) submit.disabled = checked !== count;
    }
    form.addEventListener("change", update);
    update();
  }

  function setupPlaceForm(form) {
    var groups = Array.prototype.slice.call(form.querySelectorAll("[data-card-group]"));
    var submit = form.querySelector('button[type="submit"]');
    function chosen(group) {
      var input = group.querySelector("input:checked");
      return input ? input.value : null;
    }
    var conflict = form.querySelector("[data-card-conflict]");
    // A card goes to one place only. A card chosen in another group is dimmed, not disabled:
    // a disabled first radio takes its whole group out of the keyboard's reach (browsers
    // skip a group with nothing checked whose first radio cannot take the focus).
    function update() {
      var picks = groups.map(chosen);
      var twice = false;
      groups.forEach(function (group, index) {
        group.querySelectorAll("label.pick-card").forEach(function (label) {
          var input = label.querySelector("input");
          var elsewhere = picks.some(function (card, other) { return other !== index && card === input.value; });
          label.classList.toggle("elsewhere", elsewhere);
          if (elsewhere && input.checked) twice = true;
        });
      });
      if (conflict) conflict.hidden = !twice;
      if (submit) submit.disabled = twice || picks.some(function (card) { return card === null; });
    }
    form.addEventListener("change", update);
    update();
  }

  // A frame may redraw the page while someone is choosing (a seat comes and goes, the host
  // pauses): a form drawn again for the same decision gets the same choices back — the ticks
  // of a TAKE 2, the host's bot style or half-made tournament. Forms opt in with
  // data-keep-choices; the same decision is the same form offering the same choices.
  var kept = {};
  function fields(form) {
    return Array.prototype.slice.call(form.querySelectorAll("input, select, textarea")).filter(function (f) {
      return f.name && f.type !== "hidden" && f.type !== "submit";
    });
  }
  function ticks(field) { return field.type === "checkbox" || field.type === "radio"; }
  function offer(field) {  // what a field offers, not what is chosen in it
    if (ticks(field)) return field.name + "=" + field.value;
    if (field.tagName === "SELECT") {
      return field.name + "=" + Array.prototype.map.call(field.options, function (o) { return o.value; }).join("/");
    }
    return field.name;
  }
  function choiceKey(form) {
    var match = form.querySelector('input[name="match"]');
    return [form.id || form.dataset.testid || "", match ? match.value : ""].concat(fields(form).map(offer)).join("|");
  }
  function choicesOf(form) {  // what is chosen in each field, in the order of fields()
    return fields(form).map(function (f) { return ticks(f) ? f.checked : f.value; });
  }
  function keepChoices() {
    kept = {};
    document.querySelectorAll("form[data-keep-choices]").forEach(function (form) {
      if (form.classList.contains("sending")) return;  // sent: the answer decides
      kept[choiceKey(form)] = choicesOf(form);
    });
  }
  function applyChoices(form, values) {
    fields(form).forEach(function (f, index) {
      if (f.disabled || index >= values.length) return;
      if (ticks(f)) f.checked = values[index];
      else f.value = values[index];
    });
  }
  function restoreChoices() {
    document.querySelectorAll("form[data-keep-choices]").forEach(function (form) {
      var values = kept[choiceKey(form)];
      if (values) applyChoices(form, values);
    });
    kept = {};
  }
  document.addEventListener("htmx:wsBeforeMessage", keepChoices);

  // ... and across a reload of the page (the player reloads; a phone's browser reloads a tab
  // it had put to sleep): the two heroes tapped to take were gone. A decision's form (one
  // drawn at a version of the room) keeps its choices in the tab's storage, that decision's
  // only; a form of another version or offer starts afresh.
  var STORED_CHOICES = "pecet_choices_" + location.pathname + "|";
  function storedKey(form) {
    var version = form.querySelector('input[name="version"]');
    return version && version.value ? STORED_CHOICES + version.value + "|" + choiceKey(form) : null;
  }
  document.addEventListener("change", function (evt) {
    var form = evt.target.closest && evt.target.closest("form[data-keep-choices]");
    var key = form && storedKey(form);
    if (!key) return;
    try {
      for (var i = sessionStorage.length - 1; i >= 0; i--) {
        var other = sessionStorage.key(i);
        if (other && other !== key && other.indexOf(STORED_CHOICES) === 0) sessionStorage.removeItem(other);
      }
      sessionStorage.setItem(key, JSON.stringify(choicesOf(form)));
    } catch (e) { /* no storage: the choices last as long as the page */ }
  });
  function restoreStoredChoices() {
    document.querySelectorAll("form[data-keep-choices]").forEach(function (form) {
      var key = storedKey(form), values = null;
      try { values = key && JSON.parse(sessionStorage.getItem(key) || "null"); } catch (e) { /* none */ }
      if (Array.isArray(values)) applyChoices(form, values);
    });
  }

  // A frame that redraws the control with the keyboard's focus (another seat sealed, the host
  // skipped the show) sent the focus back to the top of the page: a person at the keyboard or
  // with a screen reader lost their place in the sheet. The same control drawn again takes
  // the focus back: the same field of the same form, the same part's title, the same button.
  var focusedKey = null;
  var FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
  function controlKey(element) {
    // A form's control is the same one only in the same decision: the Seal button of the
    // next round's sheet is not where the keyboard was (Enter there would seal it).
    var form = element.closest("form"), version = form && form.querySelector('input[name="version"]');
    var where = form ? (form.id || form.dataset.testid || form.className) + "|"
      + (form.dataset.draftKey || (version ? version.value : "")) + "|" : "";
    if (element.id) return "#" + element.id;
    if (element.name) {
      return where + element.tagName + " " + element.name + (ticks(element) ? "=" + element.value : "");
    }
    if (element.dataset.testid) return where + "@" + element.dataset.testid;
    var box = element.tagName === "SUMMARY" ? element.parentElement : null;
    var part = box && (box.dataset.part || box.dataset.keepOpen || box.id);
    if (part) return where + "summary " + part;
    return where + element.tagName + " " + (element.getAttribute("href") || "") + " "
      + (element.textContent || "").trim().slice(0, 40);
  }
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var element = document.activeElement;
    focusedKey = element && element !== document.body ? controlKey(element) : null;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var key = focusedKey;
    focusedKey = null;
    if (key === null) return;
    setTimeout(function () {  // after every listener of this frame has drawn its part
      var now = document.activeElement;
      if (now && now !== document.body) return;  // kept, or moved on by the person
      var same = Array.prototype.find.call(document.querySelectorAll(FOCUSABLE), function (e) {
        return !e.disabled && controlKey(e) === key;
      });
      if (!same) return;
      // It had the focus, so the folded parts around it were open: they open again (a
      // control inside a closed part cannot take the focus). Not a timed panel, which the
      // page closes on purpose (its time is up, or the board's show began).
      for (var node = same.parentElement; node; node = node.parentElement) {
        if (node.tagName !== "DETAILS" || node.open || node.firstElementChild === same) continue;
        if (node.hasAttribute("data-open-for")) return;
        node.open = true;
      }
      same.focus({ preventScroll: true });
    }, 0);
  });

  // A form whose one choice is required (the legion to seal) is sent once it is made: its
  // button stays off until then. A tap on it showed the browser's own note instead, in the
  // browser's language rather than the page's ("Please select one of these options.").
  function setupChoiceForm(form) {
    var submit = form.querySelector('button[type="submit"]');
    if (!submit) return;
    function update() { submit.disabled = !form.querySelector("input[required]:checked"); }
    form.addEventListener("change", update);
    update();
  }

  function setupForms(root) {
    root.querySelectorAll("form.take-form").forEach(setupTakeForm);
    root.querySelectorAll("form.place-form").forEach(setupPlaceForm);
    root.querySelectorAll("form[data-needs-choice]").forEach(setupChoiceForm);
  }

  // ---------------------------------------------------------------- stylesheets kept
  // A game's stylesheets come with its screen, and every frame replaces the screen: a copy in
  // <head> keeps their rules applied while the new frame's own links load, so no frame is
  // drawn without them. A copy goes once its screen is gone (the next game of a night has
  // stylesheets of its own, and the last game's must not restyle it).
  function keepStylesheets() {
    var wanted = {};
    document.querySelectorAll('body link[rel="stylesheet"]').forEach(function (link) {
      wanted[link.getAttribute("href")] = true;
    });
    document.head.querySelectorAll('link[data-kept]').forEach(function (copy) {
      var href = copy.getAttribute("href");
      if (wanted[href] === true) wanted[href] = copy; else copy.remove();
    });
    Object.keys(wanted).forEach(function (href) {
      if (wanted[href] !== true) return;
      var copy = document.createElement("link");
      copy.rel = "stylesheet"; copy.href = href; copy.dataset.kept = "1";
      document.head.appendChild(copy);
    });
  }

  // ---------------------------------------------------------------- animations played once
  // A broadcast redraws the whole screen (a phone taps Ready, a player joins): the scoring
  // and a lobby's seat line play their animation once, the first time they are drawn.
  function settleAnimations(root) {
    // A board that played the scoring step by step has seen it: the final frame is instant.
    root.querySelectorAll("[data-anim-seen]").forEach(function (el) {
      try { sessionStorage.setItem("pecet_anim_" + el.dataset.animSeen, "1"); } catch (e) { /* fine */ }
    });
    root.querySelectorAll("[data-anim-key]").forEach(function (el) {
      var key = "pecet_anim_" + el.dataset.animKey;
      try {
        if (sessionStorage.getItem(key)) { el.classList.add("instant"); }
        else { sessionStorage.setItem(key, "1"); }
      } catch (e) { /* fine: it just replays */ }
    });
  }

  // ---------------------------------------------------------------- the log panel
  // Newest at the bottom, and the step being shown is always the newest: show the end. A
  // phone's log sits in a <details> that stays open across the frames that redraw the page.
  // The end stays in view while the panels around the log settle (the final results grow in
  // above the board's log after the swap and shrink its box).
  // A log is kept at its end when its box changes size and when what it holds grows (a
  // step's lines that come in after their heir has walked, heirs.css), unless its reader
  // has scrolled back from the end (to open a proof, say).
  var keptAtEnd = typeof ResizeObserver === "function" ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var box = entry.target.closest("[data-scroll-end]");
      if (box && box.dataset.atEnd !== "no") box.scrollTop = box.scrollHeight;
    });
  }) : null;
  function scrollLogs(root) {
    root.querySelectorAll("[data-scroll-end]").forEach(function (box) {
      box.scrollTop = box.scrollHeight;
      if (box.dataset.atEnd) return;
      box.dataset.atEnd = "yes";
      box.addEventListener("scroll", function () {
        box.dataset.atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 8 ? "yes" : "no";
      });
    });
    if (!keptAtEnd) return;
    keptAtEnd.disconnect();  // the boxes of the frames before are gone
    document.querySelectorAll("[data-scroll-end]").forEach(function (box) {
      keptAtEnd.observe(box);
      if (box.firstElementChild) keptAtEnd.observe(box.firstElementChild);
    });
  }
  function keptOpenKey(box) { return "pecet_open_" + box.dataset.keepOpen; }
  function keepOpen(root) {
    root.querySelectorAll("details[data-keep-open]").forEach(function (box) {
      var key = keptOpenKey(box);
      try { if (sessionStorage.getItem(key)) box.open = true; } catch (e) { /* fine */ }
      if (box.dataset.watched) return;
      box.dataset.watched = "1";
      box.addEventListener("toggle", function () {
        try {
          if (box.open) sessionStorage.setItem(key, "1"); else sessionStorage.removeItem(key);
        } catch (e) { /* fine */ }
        if (box.open) scrollLogs(box);
      });
    });
  }

  // A box that scrolls without a scroll bar in sight (the TV lobby's column: the seat PINs at
  // its foot at 720p) shows a mark at its foot while more of it lies below.
  function markMoreBelow() {
    document.querySelectorAll("[data-more-below]").forEach(function (box) {
      box.classList.toggle("more-below", box.scrollHeight - box.scrollTop - box.clientHeight > 2);
    });
  }
  document.addEventListener("scroll", function (evt) {
    if (evt.target.matches && evt.target.matches("[data-more-below]")) markMoreBelow();
  }, true);
  document.addEventListener("toggle", function () { markMoreBelow(); }, true);
  window.addEventListener("resize", markMoreBelow);
  // Such a box is drawn anew with every change of the room (a phone joining): it keeps where
  // the host had scrolled it (an open tournament form stayed below the edge, jumped back).
  var keptScroll = 0;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var box = document.querySelector("[data-more-below]");
    keptScroll = box ? box.scrollTop : 0;
  });
  function restoreKeptScroll() {  // after the panels kept open are open again (keepOpen)
    var box = document.querySelector("[data-more-below]");
    if (box && keptScroll) box.scrollTop = keptScroll;
    markMoreBelow();
  }
  markMoreBelow();

  // A form sent back with its error (a wrong seat PIN) focuses its field, and the browser
  // scrolls to that field: the error above it was cut by the screen's top edge. The error
  // comes into sight; the field stays focused, just below it.
  // After the page's load: the browser focuses an autofocus field (and scrolls to it) then.
  var formError = document.querySelector(".form-error[role=alert]");
  if (formError) {
    window.addEventListener("load", function () {
      requestAnimationFrame(function () { formError.scrollIntoView({ block: "nearest" }); });
    });
  }
  // A name field full to the most a name may hold says so below it: a longer name pasted in
  // was cut to it without a word (the field's maxlength stops the typing, and cuts a paste).
  function markNameMax(field) {
    var hint = document.querySelector('[data-max-hint-for="' + field.id + '"]');
    if (hint) hint.hidden = !(field.maxLength > 0 && field.value.length >= field.maxLength);
  }
  document.querySelectorAll("input[maxlength]").forEach(function (field) {
    if (!field.id || !document.querySelector('[data-max-hint-for="' + field.id + '"]')) return;
    markNameMax(field);
    field.addEventListener("input", function () { markNameMax(field); });
  });

  // A refused join or come-back is the answer to its form's POST (/join, /reclaim): a reload
  // sent the form again (after the browser's "resend?"). The address becomes the form's own
  // page, the room's join link when a code was typed, so a reload shows the form afresh.
  var sentTo = { "/join": "join-form", "/reclaim": "reclaim-form" }[location.pathname];
  var sent = sentTo && document.getElementById(sentTo);
  if (sent && window.history && history.replaceState) {
    var typedCode = sent.elements.code ? sent.elements.code.value.trim() : "";
    var formPage = typedCode ? "/j/" + encodeURIComponent(typedCode) : "/";
    if (typedCode && sentTo === "reclaim-form" && sent.elements.name) {
      formPage += "?back=1&name=" + encodeURIComponent(sent.elements.name.value);
    }
    history.replaceState(null, "", formPage);
  }

  // A lobby form opened by a tap (the tournament, the timer, coming back to a seat) is brought wholly into sight
  // where its column scrolls: opened at the screen's foot, its button stayed below the edge.
  document.addEventListener("click", function (evt) {
    var summary = evt.target.closest && evt.target.closest("details[data-bring-into-view] > summary");
    if (!summary) return;
    var box = summary.parentElement;  // the click toggles it after this handler
    // Measured once it is open and drawn so (the toggle comes after the click's own handlers).
    box.addEventListener("toggle", function () {
      requestAnimationFrame(function () { if (box.open) bringIntoView(box); });
    }, { once: true });
  });
  // In a column that marks more of it below (data-more-below), the form's foot stops above
  // that mark, whose fade stood over half of its button; its top stays in sight first. The
  // board may be drawn scaled to the screen (board-fit.js): the column scrolls by its own
  // pixels, not the screen's.
  var FOOT_MARK_PX = 56;
  function bringIntoView(box) {
    var column = box.closest("[data-more-below]");
    if (!column) { box.scrollIntoView({ block: "nearest" }); return; }
    var shown = column.getBoundingClientRect(), form = box.getBoundingClientRect();
    var scale = column.offsetHeight ? shown.height / column.offsetHeight : 1;
    var below = (form.bottom - shown.bottom) / scale + FOOT_MARK_PX;
    var above = (form.top - shown.top) / scale;
    if (below > 0) column.scrollTop += Math.min(below, above);
    else if (above < 0) column.scrollTop += above;
  }
  // Sent by its button and taken (the tournament set), it closes, and its column goes back
  // to its top, where the room's heading and the night's plan show what was set: it stayed
  // open and scrolled down, the heading above the screen's edge. A refused one stays open,
  // its choices kept; so does one whose choices are sent as they change (the timer's).
  // The room's frame that the change sends may redraw the board before the answer comes: the
  // sent form is then out of the page, its answer reaches no listener on the document, and the
  // box drawn anew was reopened as kept open. So the answer is heard on the sent form itself,
  // and it closes the box the page holds now.
  function theBoxNow(sent) {
    if (sent.isConnected) return sent;
    var key = sent.dataset.keepOpen ? "data-keep-open" : sent.dataset.openKey ? "data-open-key" : "id";
    var value = sent.getAttribute(key);
    if (!value) return null;
    return document.querySelector("details[" + key + '="' + CSS.escape(value) + '"]');
  }
  function closeSent(sent) {
    if (sent.dataset.keepOpen) {
      try { sessionStorage.removeItem(keptOpenKey(sent)); } catch (e) { /* fine */ }
    }
    if (sent.dataset.openFor) {
      try { sessionStorage.removeItem(openKey(sent)); } catch (e) { /* fine */ }
    }
    var box = theBoxNow(sent);
    if (!box) return;
    var column = box.closest("[data-more-below]");
    if (column) column.scrollTop = 0;
    // The keyboard's place moves to the box's title: left on the button inside the closed
    // box, a frame that came before the browser moved it away took the focus back to that
    // button and opened the box again (a busy machine; see wsAfterMessage above). Nowhere
    // (a frame drew the board anew, and gives it back a moment later): the title too, or
    // that frame reopened the box the answer had just closed.
    var summary = box.querySelector("summary");
    var focused = document.activeElement;
    var lost = !focused || focused === document.body;
    if (summary && (lost || box.contains(focused))) summary.focus({ preventScroll: true });
    box.open = false;
  }
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var form = evt.detail.elt;
    var box = form.closest && form.closest("details[data-bring-into-view]");
    var sent = evt.detail.requestConfig && evt.detail.requestConfig.triggeringEvent;
    if (!box || !sent || sent.type !== "submit") return;
    form.addEventListener("htmx:afterRequest", function (answered) {
      if (answered.detail.successful) closeSent(box);
    }, { once: true });
  });

  // A panel opened by a tap (the seat PINs on the TV, a phone's own PIN, the host menu, the
  // phone's languages) stays open across the frames that redraw the page for data-open-for
  // seconds, then closes by itself: a PIN is not for everybody to read for long.
  // The board's show is what the whole room watches: a host's panel opened before the show
  // began closes as it begins (one opened during the show stays its while).
  function openKey(box) { return "pecet_open_until_" + box.dataset.openKey; }
  var showSince = 0;
  function keepOpenBriefly(root, now) {
    var showing = !!document.querySelector("#board-view[data-showing]");
    showSince = showing ? showSince || now : 0;
    root.querySelectorAll("details[data-open-for]").forEach(function (box) {
      var until = 0;
      try { until = parseFloat(sessionStorage.getItem(openKey(box)) || "0"); } catch (e) { /* fine */ }
      if (!until) return;
      var openedAt = until - 1000 * parseFloat(box.dataset.openFor);
      var beforeShow = showSince && openedAt < showSince && box.closest("#board-view");
      if (now < until && !beforeShow) { box.open = true; return; }
      box.open = false;
      try { sessionStorage.removeItem(openKey(box)); } catch (e) { /* fine */ }
    });
  }
  function closePopups(except) {
    document.querySelectorAll("details[data-closes-outside][open]").forEach(function (popup) {
      if (except && popup.contains(except)) return;
      popup.open = false;
      try { sessionStorage.removeItem(openKey(popup)); } catch (e) { /* fine */ }
    });
  }
  document.addEventListener("click", function (evt) {
    var done = evt.target.closest && evt.target.closest("details[data-open-for] [data-closes-menu]");
    if (done) {  // a choice made in the panel (a language) closes it
      var menu = done.closest("details[data-open-for]");
      try { sessionStorage.removeItem(openKey(menu)); } catch (e) { /* fine */ }
      return;
    }
    // A tap anywhere else closes a phone's pop-up panel (its PIN, its languages), which
    // would otherwise cover the game until its time is up.
    closePopups(evt.target);
    var summary = evt.target.closest && evt.target.closest("details[data-open-for] > summary");
    if (!summary) return;
    var box = summary.parentElement;  // the click toggles it after this handler
    try {
      if (box.open) sessionStorage.removeItem(openKey(box));
      else sessionStorage.setItem(openKey(box), String(Date.now() + 1000 * parseFloat(box.dataset.openFor)));
      // One of a group (<details name>: one seat's PIN) opening closes the others for good,
      // in a browser that does not do it itself too. A copy of the same panel elsewhere on
      // the page (the standings beside the host's menu) is the same one, not another.
      var group = box.getAttribute("name");
      if (!box.open && group) {
        document.querySelectorAll("details[data-open-for]").forEach(function (other) {
          if (other.getAttribute("name") !== group || openKey(other) === openKey(box)) return;
          other.open = false;
          sessionStorage.removeItem(openKey(other));
        });
      }
    } catch (e) { /* no storage: it closes with the next frame */ }
  });
  // A panel in use stays open: each choice made in it (the host setting a seat's time) gives
  // it its data-open-for seconds again; it closed under the host's finger a minute after it
  // was opened, however busy the host was in it.
  function keepInUse(evt) {
    var box = evt.target.closest && evt.target.closest("details[data-open-for][open]");
    if (!box || evt.target.closest("details[data-open-for] > summary") === box.firstElementChild) return;
    try {
      if (!sessionStorage.getItem(openKey(box))) return;  // not opened by a tap: not timed
      sessionStorage.setItem(openKey(box), String(Date.now() + 1000 * parseFloat(box.dataset.openFor)));
    } catch (e) { /* fine */ }
  }
  ["input", "change", "focusin"].forEach(function (kind) { document.addEventListener(kind, keepInUse, true); });
  // The keyboard's focus going to a control an open panel lies over (the host's menu over the
  // board's log and its corner, kept open across a reload) closes the panel: the focus was
  // there, unseen, for six Tabs. A click cannot land under a panel; only the keyboard does.
  document.addEventListener("focusin", function (evt) {
    var target = evt.target;
    if (!target || !target.getBoundingClientRect) return;
    var box = target.getBoundingClientRect();
    if (!box.width || !box.height) return;
    var top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    var over = top && top.closest ? top.closest("details[data-open-for][open]") : null;
    if (!over || over.contains(target)) return;
    over.open = false;
    try { sessionStorage.removeItem(openKey(over)); } catch (e) { /* fine */ }
  });
  // Escape closes the panel open over the page (the host's menu over the duel's log), the
  // innermost first; the focus goes back to its title. Only a click on the title did.
  document.addEventListener("keydown", function (evt) {
    if (evt.key !== "Escape" || evt.defaultPrevented) return;
    if (document.querySelector("dialog[open]")) return;  // the question's own Escape
    var inside = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest("details[data-open-for][open]") : null;
    var open = inside || Array.prototype.slice.call(
      document.querySelectorAll("details[data-open-for][open]")).pop();
    if (!open) return;
    open.open = false;
    try { sessionStorage.removeItem(openKey(open)); } catch (e) { /* fine */ }
    var title = open.querySelector(":scope > summary");
    if (title && inside) title.focus({ preventScroll: true });
    evt.preventDefault();
  });

  // ---------------------------------------------------------------- the board's clocks
  // A seat away for a while: the board says "away 2 min" and counts on without a reload.
  // Times come as seconds at the moment a frame arrived (no clock of the TV is trusted).
  function tickAway(now) {
    var words = document.getElementById("away-words");
    if (!words) return;
    document.querySelectorAll("[data-away-for]").forEach(function (chip) {
      if (chip._t0 === undefined) chip._t0 = now;
      var away = Math.floor(parseFloat(chip.dataset.awayFor || "0") + (now - chip._t0) / 1000);
      var text;
      if (away < 60) text = words.dataset.s.replace("%(n)s", away);
      else if (away < 3600) text = words.dataset.min.replace("%(n)s", Math.floor(away / 60));
      else text = words.dataset.h.replace("%(h)s", Math.floor(away / 3600)).replace("%(m)s", Math.floor(away % 3600 / 60));
      var label = chip.querySelector(".presence-text");
      if (label && label.textContent !== text) label.textContent = text;
    });
  }
  // Between games the result stays on the TV, then the standings take over (unless the host
  // already showed or dismissed them).
  function tickStandings(now) {
    document.querySelectorAll("[data-standings-in]").forEach(function (overlay) {
      if (overlay._t0 === undefined) overlay._t0 = now;
      if (!overlay.hidden) return;
      if ((now - overlay._t0) / 1000 >= parseFloat(overlay.dataset.standingsIn || "0")) {
        overlay.hidden = false;
        overlay.classList.add("appear");
        var show = document.querySelector("[data-testid=standings-show]");
        if (show) show.hidden = true;
      }
    });
  }
  // A board in the middle of a show hears from the server at every step. Silence for a few
  // steps means a frame was lost on the way (Wi-Fi, a stalled socket): ask for the present.
  var lastFrame = Date.now();
  function tickShow(now) {
    var show = document.querySelector("[data-show-ms]");
    if (!show || now - lastFrame < 2 * parseFloat(show.dataset.showMs || "0") + 4000) return;
    lastFrame = now;
    if (!socket) return;
    if (connected) socket.send(JSON.stringify({ type: "sync" }));
    else socket.reconnect();
  }
  // A quiet socket asks now and then whether it missed anything: the server answers with
  // the whole view if the room changed since the last one it sent, else a small pong.
  // No answer at all means the connection is gone though the socket never closed (a phone's
  // Wi-Fi dropped: nothing tells the browser). Then the page says so and opens a new socket,
  // and what it sent since it last heard from the server goes out again on that one: sent
  // into the dead socket, a seal seemed to do nothing while the TV showed the seat as there.
  var IDLE_PING_MS = 10000, ANSWER_WITHIN_MS = 12000, lastPing = 0, lastHeard = Date.now();
  var sentUnheard = [];  // what left since the server was last heard: [{at, message}]
  function tickIdle(now) {
    if (!socket || !connected) return;
    if (lastPing > lastHeard) {  // a ping waits for its answer: no second one meanwhile
      if (now - lastPing <= ANSWER_WITHIN_MS) return;
      connected = false;
      showConnection(true);
      connectAgain();
      return;
    }
    if (now - lastFrame < IDLE_PING_MS || now - lastPing < IDLE_PING_MS) return;
    lastPing = now;
    socket.send(JSON.stringify({ type: "ping" }));
  }
  // A new socket in place of one that may be dead, and what was sent since the server was
  // last heard sent again on it (the server takes an order sent twice once).
  function connectAgain() {
    var again = sentUnheard.filter(function (sent) { return sent.at >= lastHeard; });
    sentUnheard = [];
    // The old socket is let go without a word: closed, it would make htmx open another
    // socket in place of the new one (a dead connection closes as "abnormal").
    if (lastSocket) {
      lastSocket.letGo = true;
      lastSocket.onclose = null;
      lastSocket.onerror = null;
      try { lastSocket.close(); } catch (e) { /* already closing */ }
    }
    socket.reconnect();  // the messages below wait for the new socket to open
    again.forEach(function (sent) { socket.send(sent.message); });
    var queued = document.querySelector("#connection .connection-queued");
    if (queued && again.length) queued.hidden = false;
  }
  // The browser knows at once when the device has no network (Wi-Fi off, out of range): the
  // page says so then, not a ping's 12 s later, and a tap meanwhile says it waits; back
  // online, it connects again at once rather than at its next try.
  var wentOffline = false;
  window.addEventListener("offline", function () {
    if (!connectedOnce) return;
    wentOffline = true;
    connected = false;
    showConnection(true);
  });
  window.addEventListener("online", function () {
    if (!wentOffline || !socket) return;
    wentOffline = false;
    connectAgain();
  });
  document.addEventListener("htmx:wsBeforeMessage", function () {
    lastHeard = Date.now();
    sentUnheard = [];
  });
  document.addEventListener("htmx:wsBeforeSend", function (evt) {
    sentUnheard.push({at: Date.now(), message: evt.detail.message});
  });
  // The sealing timer's figures (templates/_countdown.html), counted down from the deadline
  // the frame brought, or standing at the time left while the clock is paused.
  function tickCountdowns(now) {
    document.querySelectorAll(".countdown").forEach(function (el) {
      var left;
      if (el.dataset.deadline) left = Math.max(0, Math.round((Date.parse(el.dataset.deadline) - now) / 1000));
      else if (el.dataset.left) left = Math.round(Number(el.dataset.left));
      else { el.style.display = "none"; return; }  // the TV's big one is a block: not [hidden]
      var m = Math.floor(left / 60), s = left % 60;
      // Only the figures change: the icon drawn with the page stays, never loaded again.
      var time = el.querySelector(".countdown-time");
      if (time) time.textContent = m + ":" + (s < 10 ? "0" : "") + s;
      el.classList.toggle("urgent", left <= 10);
    });
  }
  // The host shortened the sealing timer mid-round: the phone's countdown jumped down, and
  // its player is told why (templates/fragments/phone_view.html) for a while. A later
  // deadline says nothing: the next round's, or more time given, which the phone says itself.
  var phoneDeadline = null, TIMER_CUT_SHOWN_MS = 8000, TIMER_CUT_MIN_MS = 2000;
  function earliestDeadline() {
    var earliest = null;
    document.querySelectorAll("#phone-view .countdown[data-deadline]").forEach(function (el) {
      var at = Date.parse(el.dataset.deadline);
      if (!isNaN(at) && (earliest === null || at < earliest)) earliest = at;
    });
    return earliest;
  }
  document.addEventListener("htmx:wsBeforeMessage", function () { phoneDeadline = earliestDeadline(); });
  document.addEventListener("htmx:wsAfterMessage", function () {
    var now = earliestDeadline(), note = document.querySelector("[data-testid=timer-cut]");
    if (!note || now === null || phoneDeadline === null || now > phoneDeadline - TIMER_CUT_MIN_MS) return;
    note.hidden = false;
    setTimeout(function () { note.hidden = true; }, TIMER_CUT_SHOWN_MS);
  });
  function tick() {
    var now = Date.now();
    tickAway(now); tickStandings(now); tickShow(now); tickIdle(now); keepOpenBriefly(document, now);
    tickCountdowns(now);
  }
  setInterval(tick, 1000);

  // ---------------------------------------------------------------- websocket life
  // After a lost connection (a restarted server, Wi-Fi gone for a while) the socket tries
  // again within half a second, then waits twice as long each time up to 4 s, each wait at
  // random between its half and its whole so that a room's sockets do not all knock at once.
  // htmx's own waits grow to 64 s: a TV stayed on "Reconnecting…" for 19 s after the
  // server was back.
  if (window.htmx) {
    htmx.config.wsReconnectDelay = function (retryCount) {
      var longest = Math.min(4000, 500 * Math.pow(2, retryCount));
      return longest / 2 + Math.random() * longest / 2;
    };
  }
  var socket = null, connected = false, connectedOnce = false;
  var lastSocket = null;  // the browser's socket under htmx's (tickIdle lets a dead one go)
  if (window.htmx && htmx.createWebSocket) {
    var createSocket = htmx.createWebSocket;
    htmx.createWebSocket = function (url) {
      var raw = createSocket(url);
      // Heard first, before htmx's own listener: a socket let go that was only slow, not
      // dead, may still bring frames, older than the new socket's view; they are dropped.
      raw.addEventListener("message", function (evt) {
        if (raw.letGo) evt.stopImmediatePropagation();
      });
      return (lastSocket = raw);
    };
  }
  function showConnection(on) {
    var banner = document.getElementById("connection");
    if (banner) banner.hidden = !on;
    // In the phone's language as it stands: one chosen since the page loaded (over the
    // socket, data-set-lang) came with the view, the banner with the page.
    var view = document.getElementById("phone-view");
    if (banner && on && view && view.dataset.reconnecting) {
      banner.querySelector(".connection-words").textContent = view.dataset.reconnecting;
      banner.querySelector(".connection-queued").textContent = " " + view.dataset.queued;
    }
    body.classList.toggle("offline", !!on);
    var queued = document.querySelector("#connection .connection-queued");
    if (queued && !on) queued.hidden = true;
  }
  // What a phone sends while the connection is lost waits for it (htmx's socket keeps it
  // and sends it once open again): the banner says so, instead of a tap that seems to do
  // nothing. (htmx:wsBeforeSend comes only once it leaves; this comes at the tap.)
  document.addEventListener("htmx:wsConfigSend", function () {
    var queued = document.querySelector("#connection .connection-queued");
    if (queued && !connected) queued.hidden = false;
  });
  document.addEventListener("htmx:wsOpen", function (evt) {
    socket = evt.detail.socketWrapper; connected = true; connectedOnce = true;
    lastHeard = Date.now();
    showConnection(false);
  });
  document.addEventListener("htmx:wsClose", function (evt) {
    connected = false;
    var code = evt.detail && evt.detail.event ? evt.detail.event.code : 0;
    if (code === 1008 && body.dataset.joinUrl) {  // the seat is gone: join again
      // Forget its token first, or the join page would try to restore the dead seat.
      try { localStorage.removeItem(seatKey(body.dataset.seatCode)); } catch (e) { /* no storage */ }
      // The join page then offers "Come back to my seat" with the name filled in; a player
      // the host removed from the lobby has no seat to come back to, and joins anew.
      var removed = document.querySelector("#phone-error[data-error-code=removed]");
      var back = removed ? body.dataset.joinUrl
        : body.dataset.joinUrl + "?back=1&name=" + encodeURIComponent(body.dataset.seatName || "");
      setTimeout(function () { window.location.href = back; }, 2500);
      return;
    }
    if (connectedOnce) showConnection(true);
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible" || !socket) return;
    if (connected) socket.send(JSON.stringify({ type: "sync" }));
    else socket.reconnect();
  });
  // A short buzz and a title mark when the phone's turn begins (the phone may lie on the table).
  var baseTitle = document.title, myTurnBefore = !!document.querySelector("form.take-form");
  function noticeTurn() {
    var myTurn = !!document.querySelector("form.take-form, form.place-form");
    var takeNow = !!document.querySelector("form.take-form");
    if (takeNow && !myTurnBefore && navigator.vibrate) { try { navigator.vibrate(120); } catch (e) { /* ignore */ } }
    myTurnBefore = takeNow;
    if (body.dataset.seatCode) document.title = (myTurn ? "● " : "") + baseTitle;
  }
  // A phone scrolled down a long page shows the top, where the news is, when the board starts
  // playing a round out ("watch the board"), when its order sheet gives way to the sealed
  // card ("sealed — waiting for 2 others", Heirs), when the match ends (who won), and when
  // the night's next game begins (it opened where the last result had been scrolled to).
  function matchNow() {
    var view = document.getElementById("phone-view");
    return view ? view.dataset.match || "" : "";
  }
  var matchBefore = matchNow();
  function screenNow() {
    if (document.querySelector("#phone-view [data-testid=watch]")) return "watch";
    var view = document.getElementById("phone-view");
    if (view && view.dataset.status === "finished") return "over";
    return document.querySelector("#phone-view [data-testid=orders-form]") ? "sheet" : "other";
  }
  var screenBefore = screenNow();
  function noticeScreen() {
    var now = screenNow();
    var leftSheet = screenBefore === "sheet" && now !== "sheet";
    var match = matchNow(), newMatch = match !== "" && match !== matchBefore;
    if (newMatch || (now !== screenBefore && (leftSheet || now === "watch" || now === "over"))) {
      window.scrollTo(0, 0);
      // The news is the screen's, not the PIN's: a pop-up opened in the lobby covered the
      // first choice of the game once it began.
      closePopups(null);
    }
    screenBefore = now;
    matchBefore = match;
  }
  document.addEventListener("htmx:wsAfterMessage", function () {
    lastFrame = Date.now();
    keepStylesheets();
    tick();
    noticeScreen();
    keepOpen(document);
    restoreKeptScroll();
    scrollLogs(document);
    noticeTurn();
    restoreChoices();
    setupForms(document);
    settleAnimations(document);
    document.querySelectorAll("form.sending").forEach(function (f) { f.classList.remove("sending"); });
    // A refusal at the top of the screen goes after a while, as a page's own refusals do
    // (one that says the seat is played elsewhere stays: it holds the way back).
    var refusal = document.querySelector("#phone-error.show:not([data-error-code=kicked])");
    if (refusal && !refusal.dataset.timed) {
      refusal.dataset.timed = "1";
      setTimeout(function () { refusal.classList.remove("show"); }, 8000);
    }
  });
  // ---------------------------------------------------------------- a field the browser refuses
  // A form's field out of its bounds (a negative number of trades) stops the form before it
  // is sent, and the browser points at the field; inside a folded part of the sheet it could
  // not, and the seal did nothing, without a word. The part opens, and the field is shown.
  document.addEventListener("invalid", function (evt) {
    var field = evt.target, form = field.form;
    if (!form || form.dataset.showingInvalid) return;
    var folded = [];
    for (var node = field.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS" && !node.open) folded.push(node);
    }
    if (!folded.length) return;
    form.dataset.showingInvalid = "1";
    folded.forEach(function (details) { details.open = true; });
    setTimeout(function () {
      delete form.dataset.showingInvalid;
      field.scrollIntoView({block: "center"});
      field.reportValidity();
    }, 0);
  }, true);

  // ---------------------------------------------------------------- "are you sure?"
  // The host's questions (hand a seat to a bot, skip the show) are asked in the page's own
  // dialog, not with the browser's confirm(), which stopped the whole page while it was open:
  // the board's show, the frames of the room. The page goes on meanwhile, so the form asked
  // from may have been drawn anew. The answer then goes only if the page still asks the same
  // (a form to the same address with the same question: the seat the question named may have
  // gone to someone else meanwhile), sent as that form sends, its fields as they were. The
  // forms that ask are plain posts of hidden fields whose answer swaps nothing.
  document.addEventListener("htmx:confirm", function (evt) {
    var question = evt.detail.question, dialog = document.getElementById("confirm");
    if (!question || !dialog || !dialog.showModal) return;  // nothing to ask, or confirm()
    evt.preventDefault();
    var asker = evt.detail.elt, verb = evt.detail.verb, path = evt.detail.path;
    var values = asker.tagName === "FORM" ? Object.fromEntries(new FormData(asker)) : {};
    dialog.querySelector("[data-question]").textContent = question;
    dialog.returnValue = "";
    var stillAsked = function () {
      return Array.prototype.some.call(document.querySelectorAll("[hx-confirm]"), function (el) {
        return el.getAttribute("hx-confirm") === question && el.getAttribute("hx-" + verb) === path;
      });
    };
    dialog.stillAsked = stillAsked;
    dialog.onclose = function () {
      dialog.stillAsked = null;
      if (dialog.returnValue !== "yes") return;
      if (document.body.contains(asker)) { evt.detail.issueRequest(true); return; }
      if (stillAsked()) htmx.ajax(verb, path, {swap: "none", values: values});
    };
    dialog.showModal();
  });
  // A question the page no longer asks goes away by itself: "skip the show of every later
  // round?" stayed open over the game's final scores, the game over meanwhile.
  document.addEventListener("htmx:wsAfterMessage", function () {
    var dialog = document.getElementById("confirm");
    if (dialog && dialog.open && dialog.stillAsked && !dialog.stillAsked()) dialog.close();
  });

  // ---------------------------------------------------------------- a finger on the screen
  // A frame that comes while a finger is on a phone's form waits for it to lift: a tap on
  // "Keep" while another heir's pick redrew the page (Heirs' setup redraws a phone at each
  // pick) landed on a button that was gone, and nothing happened. The frames held are played,
  // in order and before any newer one, right after the tap's click, or when the finger slides
  // off to scroll, or after 3 s. A frame that came before the tap's order was sent cannot
  // know of it: the sheet it draws stays "sending" (a second tap on it would send the same
  // decision again, to be refused as stale) until a frame that came after the order.
  // A frame that moves the phone to the next step of the board's show waits too, as long as
  // the game's board takes to bring a step in (data-step-in-ms: Heirs walks the heir's token
  // there first): the phone never tells its player an outcome the board has not shown yet.
  var framesHeld = function () { return false; };
  var ordersSent = 0;  // the phone's orders sent so far (a frame knows of those before it)
  if (document.getElementById("phone-socket") && htmx.createWebSocket) {
    var openSocket = htmx.createWebSocket, phoneSocket = null;
    var pressing = false, draining = false, held = [], presses = 0;
    var stepping = 0, steps = 0;  // the step-in wait running (its number), 0: none
    var replayedBefore = null;  // while a held frame plays: the orders sent when it came
    framesHeld = function () { return pressing || draining || stepping !== 0; };
    htmx.createWebSocket = function (url) {
      // The socket's address was written with the page's language; one chosen since on this
      // page (data-set-lang) holds when the socket opens again after a drop, else the phone
      // went back to the language it was loaded in, mid-game.
      var address = new URL(url, location.href);
      if (address.searchParams.has("lang") && document.documentElement.lang) {
        address.searchParams.set("lang", document.documentElement.lang);
        url = address.toString();
      }
      phoneSocket = openSocket(url);
      held = [];
      draining = false;
      stepping = 0;
      queueLag = 0;
      return phoneSocket;
    };
    // The frames held, in order, once nothing holds them any more. A frame that moves the
    // phone to a step of the show plays no sooner than the step-in time after it came, and so
    // do the frames queued behind it: each step of a burst keeps its own time on screen (they
    // came one step's time apart, as the board's; played at once, the last step of a show
    // was gone as soon as drawn), and a step that came under a finger waits too.
    var queueLag = 0;  // the step-in time the frame played last from the queue kept
    var drain = function (socket) {
      if (pressing || stepping || socket !== phoneSocket) return;  // a new press or socket
      draining = false;
      while (held.length) {
        var frame = held[0];
        if (frame.lag === undefined) frame.lag = stepInMs(frame.data) || queueLag;
        var wait = frame.at + frame.lag - Date.now();
        if (wait > 0) { waitForStep(wait, socket); return; }
        held.shift();
        queueLag = frame.lag;
        replayedBefore = frame.sent;
        try {
          socket.dispatchEvent(new MessageEvent("message", {data: frame.data}));
        } finally {
          replayedBefore = null;
        }
      }
      queueLag = 0;
    };
    var waitForStep = function (ms, socket) {
      var step = stepping = ++steps;
      setTimeout(function () {
        if (stepping === step) stepping = 0;
        drain(socket);
      }, ms);
    };
    var release = function () {
      if (!pressing) return;
      pressing = false;
      draining = true;
      var socket = phoneSocket;
      // After the click's own handlers (its form is sent first).
      setTimeout(function () { drain(socket); }, 0);
    };
    // How long the board takes to bring in the step of the show this frame moves the phone
    // to (0: it moves nothing on, or the game's board brings a step in at once).
    var stepInMs = function (frame) {
      var step = /\bid="phone-view"[^>]*\bdata-show-step="([^"]*)"/.exec(frame);
      var view = document.getElementById("phone-view");
      var game = document.querySelector("#phone-view [data-step-in-ms]");
      if (!step || !view || !game || step[1] === view.dataset.showStep) return 0;
      return parseInt(game.dataset.stepInMs, 10) || 0;
    };
    document.addEventListener("pointerdown", function (evt) {
      if (!(evt.target.closest && evt.target.closest("#phone-view form"))) return;
      pressing = true;
      var press = ++presses;
      setTimeout(function () { if (press === presses) release(); }, 3000);
    }, true);
    document.addEventListener("click", release);
    document.addEventListener("pointercancel", release, true);
    document.addEventListener("pointerup", function () {
      var press = presses;
      setTimeout(function () { if (press === presses) release(); }, 300);
    }, true);
    document.addEventListener("htmx:wsBeforeMessage", function (evt) {
      if (replayedBefore !== null) return;
      if (!framesHeld()) {
        var wait = stepInMs(evt.detail.message);
        if (!wait) return;
        waitForStep(wait, phoneSocket);
      }
      held.push({data: evt.detail.message, sent: ordersSent, at: Date.now()});
      evt.preventDefault();
    });
    document.addEventListener("htmx:wsAfterMessage", function () {
      if (replayedBefore === null || replayedBefore === ordersSent) return;
      document.querySelectorAll("#phone-view form:not([data-set-lang])").forEach(function (f) {
        f.classList.add("sending");
      });
    });
  }

  // A form that sends itself after a while (``data-send-after``, ms: a Legions step with
  // nothing to decide goes on by itself) sends once, and only while it is on the page. htmx's
  // own "load delay" trigger fired after the next decision's frame had replaced the form: the
  // order answered a decision already made, and the phone read a refusal it had not earned.
  // While frames are held (a finger on the screen) it waits: one of them may replace it.
  document.addEventListener("htmx:load", function (evt) {
    var root = evt.target;
    var forms = root.matches && root.matches("form[data-send-after]") ? [root] : [];
    if (root.querySelectorAll) forms = forms.concat([].slice.call(root.querySelectorAll("form[data-send-after]")));
    forms.forEach(function (form) {
      if (form.dataset.timed) return;
      form.dataset.timed = "1";
      var send = function () {
        if (!form.isConnected || form.dataset.sent || form.classList.contains("sending")) return;
        if (framesHeld()) { setTimeout(send, 200); return; }
        htmx.trigger(form, "submit");
      };
      setTimeout(send, Number(form.dataset.sendAfter));
    });
  });
  document.addEventListener("htmx:wsBeforeSend", function (evt) {
    var form = evt.target.closest ? evt.target.closest("form") : null;
    if (!form) return;
    if (form.dataset.setLang) {
      document.cookie = "pecet_lang=" + form.dataset.setLang + "; path=/; max-age=31536000; samesite=lax";
      document.documentElement.lang = form.dataset.setLang;
    } else {
      form.classList.add("sending");
      form.dataset.sent = "1";  // the frames that follow may clear "sending"; this stays
      ordersSent++;
    }
  });

  // ---------------------------------------------------------------- host controls and errors
  document.addEventListener("htmx:responseError", function (evt) {
    var flash = document.getElementById("board-flash");
    if (!flash) {  // a phone: its error line
      var line = document.getElementById("phone-error");
      if (!line) return;
      line.className = "phone-error show";
      line.setAttribute("role", "alert");
      line.textContent = evt.detail.xhr.responseText || "Error";
      setTimeout(function () { line.classList.remove("show"); }, 5000);
      return;
    }
    flash.textContent = evt.detail.xhr.responseText || "Error";
    flash.classList.add("show");
    setTimeout(function () { flash.classList.remove("show"); }, 5000);
  });
  // A notice that says something once (a come-back's new PIN) goes after its seconds.
  document.querySelectorAll("[data-hide-after]").forEach(function (notice) {
    setTimeout(function () { notice.classList.remove("show"); },
               1000 * parseFloat(notice.dataset.hideAfter));
  });
  document.addEventListener("click", function (evt) {
    var dismiss = evt.target.closest && evt.target.closest("[data-dismiss]");
    if (dismiss) { dismiss.parentElement.classList.remove("show"); }
  });

  document.addEventListener("htmx:afterSwap", function () {
    keepStylesheets(); keepOpen(document); scrollLogs(document);
  });

  // How to play opens in its own tab beside the game: closing it is the way back.
  document.addEventListener("click", function (evt) {
    if (!(evt.target.closest && evt.target.closest("[data-howto-close]"))) return;
    if (history.length > 1) history.back(); else { window.close(); location.href = "/"; }
  });

  // A refusal of the join page speaks of what was typed: once the player edits that form it no
  // longer applies (a corrected room code must not sit under "no room with that code").
  document.addEventListener("input", function (evt) {
    var form = evt.target.form;
    if (!form || !form.id) return;
    document.querySelectorAll('[data-error-for="' + form.id + '"]').forEach(function (el) { el.hidden = true; });
  });

  keepStylesheets();
  remember();
  restoreOrForget();
  tick();
  keepOpen(document);
  scrollLogs(document);
  restoreStoredChoices();  // before the forms count what is chosen
  setupForms(document);
  settleAnimations(document);
})();
