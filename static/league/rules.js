// The rules form's worked example: after any change, the form as it stands is sent to the
// server's engine (rules/example/, nothing saved) and the settled hanchan is shown. The 4th
// example seat is hidden when the rules are for 3 players.
(function () {
  "use strict";

  var form = document.querySelector("form[data-rules-form]");
  if (!form) return;
  var table = form.querySelector("[data-example-result]");
  var body = table && table.querySelector("tbody");
  var errors = form.querySelector("[data-example-errors]");
  var yenHeader = form.querySelector("[data-example-yen]");
  var timer = null;
  var latest = 0;

  function cell(tag, text, className) {
    var element = document.createElement(tag);
    element.textContent = text;
    if (className) element.className = className;
    return element;
  }

  function showSeats() {
    var players = form.querySelector("[name=players]");
    var count = players ? parseInt(players.value, 10) || 4 : 4;
    form.querySelectorAll("[data-example-points]").forEach(function (input, i) {
      input.closest("label").hidden = i >= count;
    });
  }

  function show(data) {
    errors.textContent = "";
    body.textContent = "";
    if (data.errors) {
      data.errors.forEach(function (message) { errors.appendChild(cell("li", message)); });
      table.hidden = true;
      return;
    }
    table.hidden = false;
    yenHeader.hidden = !data.rate;
    data.players.forEach(function (p) {
      var row = document.createElement("tr");
      row.appendChild(cell("th", p.name)).setAttribute("scope", "row");
      row.appendChild(cell("td", p.points, "num"));
      row.appendChild(cell("td", String(p.rank), "num"));
      row.appendChild(cell("td", p.score, "num score " + p.sign));
      var yen = row.appendChild(cell("td", p.yen, "num"));
      yen.hidden = !data.rate;
      body.appendChild(row);
    });
  }

  function update() {
    showSeats();
    var asked = ++latest;
    fetch(form.dataset.exampleUrl, {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch" },
    })
      .then(function (response) { return response.json(); })
      .then(function (data) { if (asked === latest) show(data); })
      .catch(function () {});
  }

  function soon() {
    clearTimeout(timer);
    timer = setTimeout(update, 250);
  }

  form.addEventListener("input", soon);
  form.addEventListener("change", soon);
  update();

  // Picking other hand rules: each "as the preset (…)" choice says that preset's value.
  var defaults = document.getElementById("hand-defaults");
  var handPreset = form.querySelector("[name=hand_preset]");
  if (defaults && handPreset) {
    var words = JSON.parse(defaults.textContent);
    handPreset.addEventListener("change", function () {
      var shown = words[handPreset.value] || words[""];
      Object.keys(shown).forEach(function (name) {
        var field = form.querySelector("[name=" + name + "]");
        if (!field) return;
        if (field.tagName === "SELECT") {
          var first = field.querySelector("option[value='']");
          if (first) first.textContent = shown[name];
        } else {
          field.placeholder = shown[name];  // a number: the preset's, in the empty box
        }
      });
    });
  }
})();
