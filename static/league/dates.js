// Dates are typed as 2026/11/25 (any way people write them is accepted by the server); beside
// each date field, a calendar button opens the phone's own date picker, whose choice is written
// back as 2026/11/25. Fields opt in with data-date; without JavaScript they stay plain text.
(function () {
  "use strict";

  var LABEL = document.body.dataset.datePickerLabel || "Calendar";

  function iso(text) {
    // 2026/11/25, 2026-11-25, 2026年11月25日 and full-width digits: the picker's yyyy-mm-dd.
    var digits = (text || "").replace(/[０-９]/g, function (d) {
      return String.fromCharCode(d.charCodeAt(0) - 0xfee0);
    });
    var m = digits.match(/^\s*(\d{4})\D+(\d{1,2})\D+(\d{1,2})\D*\s*$/);
    if (!m) return "";
    return m[1] + "-" + ("0" + m[2]).slice(-2) + "-" + ("0" + m[3]).slice(-2);
  }

  function enhance(text) {
    if (text.dataset.dateReady) return;
    text.dataset.dateReady = "1";
    var wrap = document.createElement("span");
    wrap.className = "date-field";
    text.parentNode.insertBefore(wrap, text);
    wrap.appendChild(text);

    var picker = document.createElement("input");
    picker.type = "date";
    picker.className = "date-picker";
    picker.tabIndex = -1;
    picker.setAttribute("aria-hidden", "true");
    wrap.appendChild(picker);

    var button = document.createElement("button");
    button.type = "button";
    button.className = "date-button";
    button.setAttribute("aria-label", LABEL);
    button.title = LABEL;
    button.dataset.datePicker = "";
    wrap.appendChild(button);

    button.addEventListener("click", function () {
      if (text.disabled || text.readOnly) return;
      picker.value = iso(text.value);
      if (typeof picker.showPicker === "function") {
        try {
          picker.showPicker();
          return;
        } catch (e) {
          // not allowed here (an old browser): fall through to focusing it
        }
      }
      picker.focus();
      picker.click();
    });
    picker.addEventListener("change", function () {
      if (!picker.value) return;
      text.value = picker.value.replace(/-/g, "/");
      text.dispatchEvent(new Event("input", { bubbles: true }));
      text.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  document.querySelectorAll("input[data-date]").forEach(enhance);
})();
