// A Web Worker running one of the page's long searches (the exact layout solver or the schedule
// search) in its own small Wasm module (search.js/search.wasm: core only), so the page's main
// thread keeps drawing while it searches. Messages from the page:
//   {type: 'start', request}   request: see web/worker/search_session.h
//   {type: 'cancel'}           stop; the best so far comes back as the result
// Messages to the page: {type: 'progress', progress}, {type: 'result', result},
// {type: 'error', error}. The page verifies every result before showing it.
'use strict';
// Everything in a closure: search.js (Emscripten) declares globals of its own, run() among them.
(() => {
const kSliceMs = 50;  // work between looks at the message queue (how fast a cancel is seen)
let ready = false, queued = [], cancelled = false, running = false;

self.Module = {
  onRuntimeInitialized() {
    ready = true;
    for (const m of queued) handle(m);
    queued = [];
  },
  onAbort(what) { self.postMessage({ type: 'error', error: 'the search module stopped: ' + what }); },
};
try {
  importScripts('search.js');
} catch (e) {
  self.postMessage({ type: 'error', error: 'cannot load search.js: ' + e });
}

const call = (name, ret, types, args) => self.Module.ccall(name, ret, types, args);

function searchSlice() {
  if (cancelled) call('ap_job_cancel', null, [], []);
  // Work in small steps until kSliceMs passed, then yield so a cancel message can arrive.
  const t0 = performance.now();
  let progress;
  do {
    progress = JSON.parse(call('ap_job_step', 'string', ['number'], [2048]));
  } while (!progress.done && performance.now() - t0 < kSliceMs);
  if (progress.error) {
    self.postMessage({ type: 'error', error: progress.error });
    running = false;
  } else if (progress.done) {
    self.postMessage({ type: 'result', result: JSON.parse(call('ap_job_result', 'string', [], [])) });
    running = false;
  } else {
    self.postMessage({ type: 'progress', progress });
    setTimeout(searchSlice, 0);
  }
}

function handle(msg) {
  if (msg.type === 'cancel') {
    cancelled = true;
  } else if (msg.type === 'start' && !running) {
    const refused = call('ap_job_start', 'string', ['string'], [JSON.stringify(msg.request)]);
    if (refused) {
      self.postMessage({ type: 'error', error: refused });
      return;
    }
    running = true;
    searchSlice();
  }
}

self.onmessage = (e) => (ready ? handle(e.data) : queued.push(e.data));
})();
