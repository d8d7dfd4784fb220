// npm start: serves web/ on localhost with sirv, under the strict Content
// Security Policy the demo and widgets are written for. The demo page is at
// /demo/; it imports ../src/index.js and fetches ../dist/*.wasm by relative
// URL, so web/{demo,components,src,dist} copied together work on any static host.
//
//   node web/tools/serve.mjs [--port N] [--host H] [--no-csp]
//   PORT=N node web/tools/serve.mjs
//
// Also imported by tests/browser/run.mjs: startServer({ port: 0 }) picks a free port.
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import sirv from 'sirv';

export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

/**
 * Starts the static server. port 0 picks a free port; a taken port is an error
 * unless `tryNext` is set, then the next ports are tried. Resolves to
 * { server, port, url, close() }.
 */
export async function startServer({ port = 0, host = '127.0.0.1', csp = true, tryNext = false } = {}) {
  const files = sirv(WEB_ROOT, {
    dev: true, // no caching: edits show on reload
    etag: true,
    dotfiles: false,
    setHeaders(res) {
      if (csp) res.setHeader('Content-Security-Policy', CSP);
      res.setHeader('X-Content-Type-Options', 'nosniff');
    },
  });
  const notFound = (res) => {
    res.statusCode = 404;
    if (csp) res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('Not found');
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://localhost').pathname;
    if (path === '/' || path === '/index.html') {
      res.statusCode = 302;
      res.setHeader('Location', '/demo/');
      res.end();
      return;
    }
    if (path.startsWith('/tools/')) return notFound(res); // build scripts are not part of the site
    files(req, res, () => notFound(res));
  });
  for (let p = port; ; p++) {
    try {
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(p, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (err) {
      if (!(tryNext && err.code === 'EADDRINUSE' && p < port + 20)) throw err;
    }
  }
  const actual = server.address().port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port: actual,
    url: `http://${shown}:${actual}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function parseArgs(argv) {
  const o = { port: process.env.PORT ? Number(process.env.PORT) : 8080, host: '127.0.0.1', csp: true, tryNext: !process.env.PORT };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port' || a === '-p') {
      o.port = Number(argv[++i]);
      o.tryNext = false;
    } else if (a === '--host') o.host = argv[++i];
    else if (a === '--no-csp') o.csp = false;
    else if (a === '--help' || a === '-h') {
      console.log('usage: node web/tools/serve.mjs [--port N] [--host H] [--no-csp]');
      process.exit(0);
    } else {
      console.error(`serve: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) {
    console.error('serve: --port must be an integer in 0..65535');
    process.exit(2);
  }
  return o;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const s = await startServer(parseArgs(process.argv.slice(2)));
  console.log(`softmax-wasm demo: ${s.url}demo/  (port ${s.port}, serving ${WEB_ROOT})`);
  console.log(`lesson widgets:    ${s.url}demo/widgets/`);
  console.log('Press Ctrl+C to stop.');
  const stop = () => s.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
