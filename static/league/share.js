// The share page: copy the message, or hand it to the phone's share sheet (LINE among its apps)
// where the browser has one (navigator.share); the button stays hidden where it does not.
(function () {
  "use strict";

  var text = document.querySelector("[data-share-text]");
  var copy = document.querySelector("[data-copy]");
  var share = document.querySelector("[data-share]");
  var status = document.querySelector("[data-copy-status]");
  if (!text || !copy) return;

  function say(message) {
    if (status) status.textContent = message;
  }

  function copyBySelection() {
    text.focus();
    text.select();
    try {
      return document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  copy.addEventListener("click", function () {
    var done = function () { say(copy.dataset.copied); };
    var fallback = function () {
      if (copyBySelection()) done(); else say(copy.dataset.copyFailed);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text.value).then(done, fallback);
    } else {
      fallback();
    }
  });

  if (share && navigator.share) {
    share.hidden = false;
    share.addEventListener("click", function () {
      navigator.share({ text: text.value }).catch(function () {});
    });
  }
})();
