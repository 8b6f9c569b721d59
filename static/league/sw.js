// 雀帳's service worker (served at /sw.js so that it covers the whole site): the app shell and
// the table mode's page stay available when the parlour's signal goes. Static files come from
// the cache first; pages from the network first, falling back to the last copy. Writes (POST)
// are never cached: table.js keeps the hands in localStorage and sends them itself.
"use strict";
// Static files are cached first under unhashed names: bump this when a cached file changes, so
// that the new worker drops the old copies (v2: table mode with pao, nagashi and the calculator;
// v3: app.css's wrapping cells; table mode's winds at the end of a game and its preview of a
// hand's points; v4: table.js sends to the JSON API, the old table URLs are gone; v6: app.css's
// notices; v7: the record form's rate question: record.js leaves the preview fresh when it is
// answered, record.css lays out its box).
var CACHE = "jancho-v7";
var SHELL = [
  "/static/league/app.css",
  "/static/league/table.css",
  "/static/league/table.js",
  "/static/league/table_engine.js",
  "/static/league/confirm.js",
  "/static/league/manifest.webmanifest",
  "/static/league/icon.svg",
];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(SHELL); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(caches.match(request).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        var copy = response.clone();
        caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
        return response;
      });
    }));
    return;
  }
  if (request.mode === "navigate" && /\/table\/[0-9a-f-]+\/$/.test(url.pathname)) {
    event.respondWith(fetch(request).then(function (response) {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
      return response;
    }).catch(function () { return caches.match(request); }));
  }
});
