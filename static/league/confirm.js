// Buttons that undo something others rely on (a link already posted in LINE, money made public)
// ask first: <button data-confirm="…">. Without script the button works as it is.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-confirm]");
    if (button && !window.confirm(button.getAttribute("data-confirm"))) {
      event.preventDefault();
    }
  });
})();
