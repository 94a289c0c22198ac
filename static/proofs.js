// Pečeť: checks sealed-order proofs in the browser. When an heir seals, the room sees a
// commitment, sha256(canonical JSON of the order + salt); once the order is revealed with its
// salt, this recomputes the hash from the order itself and marks the line ✓ (it matches: the
// order is the one sealed) or ✗. js-sha256 (vendored) does the hashing, because
// crypto.subtle is missing on plain-http pages of a LAN address.
(function () {
  "use strict";

  // The canonical JSON: keys sorted at every level, no spaces, strings as JSON.stringify writes
  // them (like Python's json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)).
  function canonical(value) {
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    return "{" + Object.keys(value).sort().map(function (key) {
      return JSON.stringify(key) + ":" + canonical(value[key]);
    }).join(",") + "}";
  }

  function verify(line) {
    var mark = line.querySelector(".proof-check");
    if (!mark || line.dataset.checked) return;
    if (typeof window.sha256 !== "function") { mark.textContent = "?"; return; }
    var ok = false;
    try {
      var order = JSON.parse(line.dataset.order);
      ok = window.sha256(canonical(order) + line.dataset.salt) === line.dataset.commitment.toLowerCase();
    } catch (e) { ok = false; }
    line.dataset.checked = ok ? "ok" : "bad";
    line.classList.add(ok ? "ok" : "bad");
    mark.textContent = ok ? "✓" : "✗";
    mark.title = ok ? mark.dataset.okTitle || "" : mark.dataset.badTitle || "";
  }

  function verifyAll() { document.querySelectorAll(".proof[data-commitment]").forEach(verify); }

  window.PecetProofs = { canonical: canonical, verifyAll: verifyAll };
  document.addEventListener("htmx:afterSwap", verifyAll);
  document.addEventListener("htmx:wsAfterMessage", function () { setTimeout(verifyAll, 0); });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", verifyAll);
  else verifyAll();
})();
