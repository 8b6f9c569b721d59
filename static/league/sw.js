// 雀帳's service worker (served at /sw.js so that it covers the whole site): the app shell and
// the table mode's page stay available when the parlour's signal goes. Static files come from
// the cache first; pages from the network first, falling back to the last copy. Writes (POST)
// are never cached: table.js keeps the hands in localStorage and sends them itself.
"use strict";
// Static files have hashed names (ManifestStaticFilesStorage), so a cached copy is never stale:
// a changed file is a new URL. The server puts this build's precache list and cache name in the
// line below (league/table/offline.py); a new build is a new cache, and activating drops the old.
var PRECACHE = {"cache": "jancho-dev", "shell": []};
var CACHE = PRECACHE.cache;
var SHELL = PRECACHE.shell;

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
