// The new club page: suggests a short name (the club's address) from the club's name until the
// user types one, and says whether it is free. The worked example is league/rules.js's.
(function () {
  "use strict";

  var form = document.querySelector("form[data-slug-url]");
  if (!form) return;
  var name = form.querySelector("[name=name]");
  var slug = form.querySelector("[name=slug]");
  var status = form.querySelector("[data-slug-status]");
  var edited = slug.value !== "";
  var timer = null;
  var latest = 0;

  function check(fromName) {
    var asked = ++latest;
    var params = new URLSearchParams();
    params.set("name", name.value);
    params.set("slug", fromName ? "" : slug.value);
    fetch(form.dataset.slugUrl + "?" + params.toString(), { credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        if (asked !== latest) return;
        if (fromName) slug.value = data.slug;
        status.textContent = data.error || "/c/" + data.slug + "/ ✓";
        status.className = "slug-status " + (data.error ? "bad" : "ok");
      })
      .catch(function () {});
  }

  function soon(fromName) {
    clearTimeout(timer);
    timer = setTimeout(function () { check(fromName); }, 300);
  }

  name.addEventListener("input", function () {
    if (!edited && name.value.trim()) soon(true);
  });
  slug.addEventListener("input", function () {
    edited = slug.value.trim() !== "";
    if (edited) soon(false);
    else if (name.value.trim()) soon(true);
  });
  if (edited) check(false);
})();
