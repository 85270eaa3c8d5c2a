#!/usr/bin/env node
// A tiny dependency-free static file server for the built site (build/<dir>/site):
//   node scripts/serve.mjs DIR [--port N]     (port 0 = any free port; prints the URL)
// Binds 127.0.0.1 only. Also imported by the browser tests: serve(dir, port) -> {url, close}.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',  // required for WebAssembly.instantiateStreaming
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.tflite': 'application/octet-stream',
  '.glsl': 'text/plain; charset=utf-8',
};

export function serve(dir, port = 0) {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (rel.endsWith('/')) rel += 'index.html';
    const file = path.join(root, rel);
    // Never serve anything outside the site folder (../ tricks).
    if (file !== root && !file.startsWith(root + path.sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found: ' + rel);
        return;
      }
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': st.size,
        'Cache-Control': 'no-cache',
      });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      resolve({ url, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}

// Command line use.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const portAt = args.indexOf('--port');
  const port = portAt >= 0 ? Number(args[portAt + 1]) : 8080;
  const dir = args.find((a, i) => !a.startsWith('--') && (portAt < 0 || i !== portAt + 1));
  if (!dir || !fs.existsSync(dir) || !Number.isInteger(port) || port < 0 || port > 65535) {
    console.error('usage: node scripts/serve.mjs DIR [--port N]   (DIR must exist; N=0 picks a free port)');
    process.exit(2);
  }
  const { url } = await serve(dir, port);
  console.log(url);
}
