// The day's ledger: one tap records once. After a settle form is sent, every ledger button waits
// for the next page (the server refuses a transfer that is no longer due anyway). The page comes
// back where it was scrolled to: marking the tenth transfer paid does not jump to the top.
(function () {
  "use strict";

  var FORMS = "form[data-ledger-action]";
  var SCROLL = "jancho-ledger-scroll:" + location.pathname;

  function remember() {
    try {
      sessionStorage.setItem(SCROLL, JSON.stringify({ y: Math.round(window.scrollY), at: Date.now() }));
    } catch (e) {
      // storage off (private mode): the page opens at its top, as without JavaScript
    }
  }

  function restore() {
    var saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(SCROLL) || "null");
      sessionStorage.removeItem(SCROLL);
    } catch (e) {
      return;
    }
    // Only straight after a tap here (the page that answers it), not on a later visit.
    if (saved && typeof saved.y === "number" && Date.now() - saved.at < 30000) {
      window.scrollTo(0, saved.y);
    }
  }

  function setButtons(disabled) {
    document.querySelectorAll(FORMS + " button[type=submit]").forEach(function (button) {
      button.disabled = disabled;
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.matches(FORMS)) return;
    if (document.body.dataset.sending) {
      event.preventDefault();
      return;
    }
    document.body.dataset.sending = "1";
    remember();
    // The buttons carry no values (each form has its own hidden fields), so disabling them
    // here does not change what is sent.
    setButtons(true);
  });

  restore();

  // Back to this page with the browser's back button: let it be used again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    delete document.body.dataset.sending;
    setButtons(false);
  });
})();
