/* 雀帳: confirming an import. Once the form is sent the page waits for the whole import (all or
 * nothing, in one request); meanwhile it asks the server how far it has got, every second, and
 * shows it. Where the server cannot tell (SQLite), it says only that the import is under way.
 * The button is disabled after the first tap, so a double tap imports once.
 */
(function () {
  "use strict";

  function fill(template, done, total) {
    return template.replace("{done}", done).replace("{total}", total);
  }

  document.querySelectorAll("form[data-import-confirm]").forEach(function (form) {
    var box = form.querySelector("[data-import-progress]");
    if (!box) return;
    var bar = box.querySelector("progress");
    var text = box.querySelector("[data-progress-text]");

    function show(state) {
      if (state && state.known) {
        bar.max = state.total;
        bar.value = state.done;
        text.textContent = fill(
          form.dataset.textKnown,
          state.done.toLocaleString("en-US"),
          state.total.toLocaleString("en-US")
        );
      } else {
        bar.removeAttribute("value"); // an indeterminate bar: no made-up percentage
        text.textContent = form.dataset.textUnknown;
      }
    }

    function poll() {
      fetch(form.dataset.progressUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (state) { if (state) show(state); })
        .catch(function () { /* the next poll tries again */ });
    }

    form.addEventListener("submit", function (event) {
      if (form.dataset.sent) {
        event.preventDefault();
        return;
      }
      form.dataset.sent = "1";
      // A disabled button is not sent: keep the pressed button's name and value.
      var submitter = event.submitter;
      if (submitter && submitter.name) {
        var carried = document.createElement("input");
        carried.type = "hidden";
        carried.name = submitter.name;
        carried.value = submitter.value;
        form.appendChild(carried);
      }
      form.querySelectorAll("button[type=submit]").forEach(function (button) { button.disabled = true; });
      box.hidden = false;
      show(null);
      window.setInterval(poll, 1000);
    });
  });
})();
