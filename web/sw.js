// arenaplan's offline cache: the page works without a network once it has been loaded.
// Network first (a rebuilt app.wasm is always picked up when the server answers), the cached copy
// when the network fails. Only the playground's own files are cached; links keep their state in
// the fragment, which never reaches this worker.
'use strict';
const CACHE = 'arenaplan-v1';
const FILES = ['./', 'index.html', 'app.js', 'app.wasm', 'search_worker.js', 'search.js', 'search.wasm'];  // + the searches' worker

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(request, copy));
    }
    return response;
  }).catch(() => caches.match(request, { ignoreSearch: true }).then((hit) => hit || Response.error())));
});
