/* 雀帳: recording a game on a phone.
 *
 * - The live sum check: the final points and deposits must add up to players × start. Points are
 *   read as the server reads them (scoring.parse_integer): full-width digits, commas, ▲ for minus.
 * - A ± button per points field, for phone keypads that have no minus key.
 * - Submit buttons are disabled once a form is sent, so a double tap sends one request.
 * No inline script anywhere: the texts and the target come from data- attributes on the form.
 */
(function () {
  "use strict";

  // The signs scoring/text.py reads as minus (after NFKC, as there).
  var MINUS = "▲△−‐‑‒–—―ーｰ-";

  function parseInteger(text) {
    var s = (text || "").normalize("NFKC").trim();
    s = s.replace(/[,、 ]/g, "");
    if (s.slice(-1) === "点") s = s.slice(0, -1);
    var sign = 1;
    if (s && MINUS.indexOf(s[0]) !== -1) {
      sign = -1;
      s = s.slice(1);
    } else if (s[0] === "+") {
      s = s.slice(1);
    }
    if (!/^[0-9]+$/.test(s)) return null;
    return sign * parseInt(s, 10);
  }

  function formatNumber(n) {
    return n.toLocaleString("en-US");
  }

  function fill(template, values) {
    var i = 0;
    return template.replace(/%s/g, function () {
      return values[i++];
    });
  }

  function setUpSum(form) {
    var status = form.querySelector("[data-sum]");
    var inputs = form.querySelectorAll("input[data-points]");
    var deposits = form.querySelector("input[name=deposits]");
    var base = parseInt(form.dataset.target, 10);
    if (!status || !inputs.length || isNaN(base)) return;

    function update() {
      var total = 0;
      var typed = 0;
      inputs.forEach(function (input) {
        var value = parseInteger(input.value);
        var bad = input.value.trim() !== "" && value === null;
        input.classList.toggle("unreadable", bad);
        if (value !== null) {
          total += value;
          typed += 1;
        }
      });
      var unreadable = form.querySelectorAll("input.unreadable").length;
      var keptText = deposits ? deposits.value.trim() : "";
      var kept = deposits ? parseInteger(keptText) : 0;
      if (deposits) {
        deposits.classList.toggle("unreadable", keptText !== "" && kept === null);
        if (keptText !== "" && kept === null) unreadable += 1;
      }
      var target = base - (kept || 0);
      if (!typed && !unreadable) {
        status.hidden = true;
        return;
      }
      var diff = target - total;
      var text;
      if (diff > 0) text = fill(form.dataset.sumShort, [formatNumber(total), formatNumber(target), formatNumber(diff)]);
      else if (diff < 0) text = fill(form.dataset.sumOver, [formatNumber(total), formatNumber(target), formatNumber(-diff)]);
      else text = fill(form.dataset.sumOk, [formatNumber(total), formatNumber(target)]);
      // Why the target is not players × start: what is left on the table.
      if (kept) text += " · " + fill(form.dataset.sumTarget, [formatNumber(target), formatNumber(base), formatNumber(kept)]);
      // A number that cannot be read is said, never silently left out of the total.
      if (unreadable) text += " · " + fill(form.dataset.sumUnreadable, [String(unreadable)]);
      status.textContent = text;
      var ok = diff === 0 && !unreadable;
      status.classList.toggle("ok", ok);
      status.classList.toggle("off", !ok);
      status.hidden = false;
    }

    form.addEventListener("input", function (event) {
      if (event.target.matches("input[data-points], input[name=deposits]")) update();
    });
    form.addEventListener("sign-flipped", update);
    update();
  }

  // Enter in a field moves to the next one, as a phone keyboard's "next" does: it never sends
  // the whole form half-filled (which came back with every empty field "required").
  function setUpEnterMovesOn(form) {
    form.addEventListener("keydown", function (event) {
      var field = event.target;
      if (event.key !== "Enter" || event.isComposing || !field.matches("input:not([type=checkbox]):not([type=hidden]), select")) return;
      event.preventDefault();
      var fields = Array.prototype.filter.call(
        form.querySelectorAll("input:not([type=hidden]):not([tabindex='-1']), select, button[type=submit]:not([tabindex='-1'])"),
        function (element) { return !element.disabled && element.offsetParent !== null; }
      );
      var next = fields[fields.indexOf(field) + 1];
      if (next) next.focus();
    });
  }

  function setUpSignButtons(form) {
    form.querySelectorAll("button[data-sign-for]").forEach(function (button) {
      button.addEventListener("click", function () {
        var input = document.getElementById(button.dataset.signFor);
        if (!input) return;
        var value = input.value.trim();
        if (value && MINUS.indexOf(value.normalize("NFKC")[0]) !== -1) input.value = value.slice(1);
        else input.value = "-" + value;
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.focus();
      });
    });
  }

  // Chip rows name seats by wind; show who sits there as names are typed ("東 青木").
  function setUpSeatNames(form) {
    var members = form.querySelectorAll("input.member");
    var selects = form.querySelectorAll("select[name^=chip_winner_], select[name^=chip_from_]");
    if (!members.length || !selects.length) return;
    var winds = {};
    selects[0].querySelectorAll("option").forEach(function (option) {
      if (option.value !== "") winds[option.value] = option.textContent;
    });
    function update() {
      selects.forEach(function (select) {
        select.querySelectorAll("option").forEach(function (option) {
          if (option.value === "" || !(option.value in winds)) return;
          var name = members[parseInt(option.value, 10)];
          var typed = name ? name.value.trim() : "";
          option.textContent = typed ? winds[option.value] + " " + typed : winds[option.value];
        });
      });
    }
    members.forEach(function (input) {
      input.addEventListener("change", update);
    });
    update();
  }

  // Show the chip rows in use and one empty row more; the rest wait until they are needed.
  function setUpChipRows(form) {
    var rows = Array.prototype.slice.call(form.querySelectorAll("[data-chip-row]"));
    if (!rows.length) return;
    function update() {
      var used = 0;
      rows.forEach(function (row, i) {
        var kind = row.querySelector("select[name^=chip_kind_]");
        if ((kind && kind.value) || row.querySelector(".errorlist")) used = i + 1;
      });
      rows.forEach(function (row, i) {
        row.hidden = i > used;
      });
    }
    form.addEventListener("change", function (event) {
      if (event.target.matches("select[name^=chip_kind_]")) update();
    });
    update();
  }

  // After a preview, any change makes the shown result stale: say so next to the Save button.
  function setUpStalePreview(form) {
    var preview = form.querySelector("[data-preview]");
    var note = form.querySelector("[data-stale-note]");
    if (!preview || !note) return;
    form.addEventListener("input", function (event) {
      // An answer to the preview itself.
      if (event.target.name === "confirm_duplicate" || event.target.name === "confirm_rate") return;
      preview.classList.add("stale");
      note.textContent = form.dataset.previewStale;
      note.hidden = false;
    });
  }

  // 飛び賞 to the buster: a row asks "busted by?" only while its points are below zero (or at
  // zero, where the rules count that). The server asks again if the page could not.
  function setUpBustedBy(form) {
    var boxes = form.querySelectorAll("[data-busted-by]");
    if (!boxes.length) return;
    // The options are winds; each also shows the name typed in that seat ("東 青木").
    function labelOptions() {
      form.querySelectorAll("[data-busted-by] select option[value]").forEach(function (option) {
        if (option.value === "") return;
        if (!option.dataset.wind) option.dataset.wind = option.textContent.trim();
        var name = form.querySelector("#id_member_" + option.value);
        var typed = name ? name.value.trim() : "";
        option.textContent = typed ? option.dataset.wind + " " + typed : option.dataset.wind;
      });
    }
    function update() {
      labelOptions();
      boxes.forEach(function (box) {
        var points = document.getElementById(box.dataset.bustedBy);
        var value = points ? parseInteger(points.value) : null;
        var busted = value !== null && (value < 0 || (value === 0 && box.hasAttribute("data-at-zero")));
        var hasError = box.querySelector(".errorlist") !== null;
        box.hidden = !busted && !hasError;
      });
    }
    form.addEventListener("input", function (event) {
      if (event.target.matches("input[data-points], input.member")) update();
    });
    form.addEventListener("change", function (event) {
      if (event.target.matches("input.member")) update();
    });
    form.addEventListener("sign-flipped", update);
    update();
  }

  function setUpSubmitGuard(form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.sent) {
        event.preventDefault();
        return;
      }
      form.dataset.sent = "1";
      // A disabled button is not sent, so carry the pressed button's value in a hidden field.
      var submitter = event.submitter;
      if (submitter && submitter.name) {
        var carried = document.createElement("input");
        carried.type = "hidden";
        carried.name = submitter.name;
        carried.value = submitter.value;
        form.appendChild(carried);
      }
      form.querySelectorAll("button[type=submit]").forEach(function (button) {
        button.disabled = true;
      });
    });
  }

  // Coming back with the browser's back button shows the page as it was: let it be sent again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;
    document.querySelectorAll("form[data-record]").forEach(function (form) {
      delete form.dataset.sent;
      form.querySelectorAll("input[type=hidden][name=action]").forEach(function (input) {
        input.remove();
      });
      form.querySelectorAll("button[type=submit]").forEach(function (button) {
        button.disabled = false;
      });
    });
  });

  document.querySelectorAll("form[data-record]").forEach(function (form) {
    setUpSum(form);
    setUpSignButtons(form);
    setUpEnterMovesOn(form);
    setUpSeatNames(form);
    setUpChipRows(form);
    setUpBustedBy(form);
    setUpStalePreview(form);
    setUpSubmitGuard(form);
  });
})();
