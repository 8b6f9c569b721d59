// 「もしかして」: each suggested name is a button that fills its field
// (<button type="button" data-fill="id_member_0" data-name="斎藤 由美子">). Served as a file: the
// pages' CSP allows no inline script. Without script the names are still shown to be typed.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-fill]");
    if (!button) return;
    var field = document.getElementById(button.getAttribute("data-fill"));
    if (!field) return;
    event.preventDefault();
    field.value = button.getAttribute("data-name");
    field.dispatchEvent(new Event("input", { bubbles: true }));
    field.dispatchEvent(new Event("change", { bubbles: true }));
    var box = button.closest("[data-suggestions]");
    if (box) box.hidden = true;
    field.focus();
  });
})();
