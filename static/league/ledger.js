// The day's ledger: one tap records once. After a settle form is sent, every ledger button waits
// for the next page (the server refuses a transfer that is no longer due anyway).
(function () {
  "use strict";

  var FORMS = "form[data-ledger-action]";

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
    // The buttons carry no values (each form has its own hidden fields), so disabling them
    // here does not change what is sent.
    setButtons(true);
  });

  // Back to this page with the browser's back button: let it be used again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    delete document.body.dataset.sending;
    setButtons(false);
  });
})();
