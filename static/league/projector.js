// The projector's countdown (league.draw.views.draw_projector): the server gives the seconds left
// when the page loads (data-left); the page counts down each second until its next reload.
(function () {
  "use strict";
  var box = document.getElementById("countdown");
  if (!box) return;
  var left = parseInt(box.getAttribute("data-left"), 10);
  if (isNaN(left)) return;
  var end = Date.now() + left * 1000;
  function show() {
    var s = Math.max(0, Math.round((end - Date.now()) / 1000));
    if (s === 0) {
      box.textContent = box.getAttribute("data-over");
      box.classList.add("over");
      return;
    }
    var m = Math.floor(s / 60);
    var r = s % 60;
    box.textContent = m + ":" + (r < 10 ? "0" : "") + r;
    window.setTimeout(show, 1000 - ((end - Date.now()) % 1000 || 0));
  }
  show();
})();
