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
    function update() {
      var checked = boxes.filter(function (b) { return b.checked; }).length;
      boxes.forEach(function (b) { b.disabled = !b.checked && checked >= count; });
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
    function update() {
      var picks = groups.map(chosen);
      groups.forEach(function (group, index) {
        group.querySelectorAll("input").forEach(function (input) {
          input.disabled = picks.some(function (card, other) { return other !== index && card === input.value; });
        });
      });
      if (submit) submit.disabled = picks.some(function (card) { return card === null; });
    }
    form.addEventListener("change", update);
    update();
  }

  function setupForms(root) {
    root.querySelectorAll("form.take-form").forEach(setupTakeForm);
    root.querySelectorAll("form.place-form").forEach(setupPlaceForm);
  }

  // ---------------------------------------------------------------- board scoring animation
  // A broadcast re-renders the scoring (a phone taps Ready); play the animation only once.
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
  function scrollLogs(root) {
    root.querySelectorAll("[data-scroll-end]").forEach(function (box) { box.scrollTop = box.scrollHeight; });
  }
  function keepOpen(root) {
    root.querySelectorAll("details[data-keep-open]").forEach(function (box) {
      var key = "pecet_open_" + box.dataset.keepOpen;
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

  // ---------------------------------------------------------------- websocket life
  var socket = null, connected = false, connectedOnce = false;
  function showConnection(on) {
    var banner = document.getElementById("connection");
    if (banner) banner.hidden = !on;
  }
  document.addEventListener("htmx:wsOpen", function (evt) {
    socket = evt.detail.socketWrapper; connected = true; connectedOnce = true;
    showConnection(false);
  });
  document.addEventListener("htmx:wsClose", function (evt) {
    connected = false;
    var code = evt.detail && evt.detail.event ? evt.detail.event.code : 0;
    if (code === 1008 && body.dataset.joinUrl) {  // the seat is gone: join again
      // Forget its token first, or the join page would try to restore the dead seat.
      try { localStorage.removeItem(seatKey(body.dataset.seatCode)); } catch (e) { /* no storage */ }
      setTimeout(function () { window.location.href = body.dataset.joinUrl; }, 2500);
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
  // When the board starts playing a round out, a phone scrolled down its sealed sheet shows
  // the top, where it says to watch the board.
  var watching = !!document.querySelector("[data-testid=watch]");
  function noticeWatch() {
    var now = !!document.querySelector("[data-testid=watch]");
    if (now && !watching) window.scrollTo(0, 0);
    watching = now;
  }
  document.addEventListener("htmx:wsAfterMessage", function () {
    noticeWatch();
    keepOpen(document);
    scrollLogs(document);
    noticeTurn();
    setupForms(document);
    settleAnimations(document);
    document.querySelectorAll("form.sending").forEach(function (f) { f.classList.remove("sending"); });
  });
  document.addEventListener("htmx:wsBeforeSend", function (evt) {
    var form = evt.target.closest ? evt.target.closest("form") : null;
    if (!form) return;
    if (form.dataset.setLang) {
      document.cookie = "pecet_lang=" + form.dataset.setLang + "; path=/; max-age=31536000; samesite=lax";
      document.documentElement.lang = form.dataset.setLang;
    } else {
      form.classList.add("sending");
    }
  });

  // ---------------------------------------------------------------- host controls and errors
  document.addEventListener("htmx:responseError", function (evt) {
    var flash = document.getElementById("board-flash");
    if (!flash) return;
    flash.textContent = evt.detail.xhr.responseText || "Error";
    flash.classList.add("show");
    setTimeout(function () { flash.classList.remove("show"); }, 5000);
  });
  document.addEventListener("click", function (evt) {
    var dismiss = evt.target.closest && evt.target.closest("[data-dismiss]");
    if (dismiss) { dismiss.parentElement.classList.remove("show"); }
  });

  document.addEventListener("htmx:afterSwap", function () { keepOpen(document); scrollLogs(document); });

  remember();
  restoreOrForget();
  keepOpen(document);
  scrollLogs(document);
  setupForms(document);
  settleAnimations(document);
})();
