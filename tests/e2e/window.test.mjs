// The real desktop window: starts the Tauri app (target/debug/vidya-desktop) under Xvfb over
// a library holding Biology 2e chapter 8, with the Ollama test server as the model; measures
// the start-up time to an interactive window, takes screenshots with ImageMagick, and drives
// one question through the window with real key presses (xdotool). The question must reach
// the engine through Tauri IPC: the test reads the stored conversation back with `vidya`.
//
// Needs Xvfb, ImageMagick (`import`), xdotool and WebKitGTK 4.1 (installed by
// `cargo xtask test`). Without them the test skips, except under CI=true.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const bins = {
  desktop: process.env.VIDYA_DESKTOP_BIN || join(target, 'debug', 'vidya-desktop'),
  vidya: process.env.VIDYA_BIN || join(target, 'debug', 'vidya'),
  server: process.env.OLLAMA_TEST_SERVER_BIN || join(target, 'debug', 'ollama-test-server'),
  xvfb: '/usr/bin/Xvfb',
  import: '/usr/bin/import',
  xdotool: '/usr/bin/xdotool',
};
const shots = resolve(process.env.VIDYA_E2E_OUT || join(repo, 'target', 'e2e-screenshots'));
const missing = Object.values(bins).filter((p) => !existsSync(p));
if (missing.length) {
  const why = `window: missing ${missing.join(', ')} (cargo build -p vidya-desktop; apt install xvfb imagemagick xdotool)`;
  if (process.env.CI === 'true') throw new Error(why);
  console.log(`SKIP ${why}`);
}
const skip = missing.length > 0;
const children = [];
let work;
// What the second test needs from the first: the running window and xdotool.
let windowState;
// Settings → Classroom's button in the 1366×768 window, off (y) and on (offY: the class's
// address, QR code and code appear above it).
const CLASSROOM_BUTTON = { x: 990, y: 340, offY: 514 };

after(() => {
  for (const c of children.reverse()) c.kill('SIGTERM');
  if (work) rmSync(work, { recursive: true, force: true });
});

function start(bin, args, env = {}) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  child.output = '';
  child.stdout.on('data', (d) => { child.output += d; });
  child.stderr.on('data', (d) => { child.output += d; });
  return child;
}

async function until(what, fn, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('the desktop window starts, renders and answers a typed question', { skip }, async () => {
  mkdirSync(shots, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'vidya-window-'));
  const library = join(work, 'library');
  const env = { VIDYA_LIBRARY: library, VIDYA_TRACE_DIR: join(work, 'traces') };
  execFileSync(bins.vidya, ['ingest', join(repo, 'tests/fixtures/biology2e/ch08.pdf')], { env: { ...process.env, ...env }, stdio: 'inherit' });

  const server = start(bins.server, ['--port', '0', '--reply', 'Plants make sugar from light in their chloroplasts [1].', '--token-delay-ms', '30']);
  const url = (await until('the Ollama test server', () => /listening on (http:\S+)/.exec(server.output)))[1];
  // The window reads its model settings from the library (the Settings screen's file).
  writeFileSync(join(library, 'settings.json'), JSON.stringify({ ollama_host: url, model: 'llama3.2:3b', language: 'auto', mode: 'answer', budget: 'balanced', ui_language: 'en', setup_done: true }));

  const display = ':97';
  start(bins.xvfb, [display, '-screen', '0', '1366x768x24', '-nolisten', 'tcp']);
  const x = { DISPLAY: display };
  await until('Xvfb', () => { try { execFileSync(bins.xdotool, ['getdisplaygeometry'], { env: { ...process.env, ...x }, stdio: 'ignore' }); return true; } catch { return false; } }, 20000);

  const t0 = Date.now();
  const app = start(bins.desktop, [], { ...env, ...x, WEBKIT_DISABLE_DMABUF_RENDERER: '1' });
  const m = await until('the interactive window', () => /interactive (\d+) ms after start/.exec(app.output), 120000);
  const wall = Date.now() - t0;
  console.log(`window: interactive ${m[1]} ms after the process started (${wall} ms wall from spawn)`);
  assert.ok(Number(m[1]) > 0);
  await new Promise((r) => setTimeout(r, 1500)); // let the first frame paint
  execFileSync(bins.import, ['-window', 'root', join(shots, 'window-start.png')], { env: { ...process.env, ...x } });

  // Type a question with real key presses into the focused question box, then Enter.
  // Xvfb runs no window manager: keyboard focus follows the pointer, so a click on the
  // question box (bottom middle of the 1366×768 window) gives it the keys.
  const xdo = (...args) => execFileSync(bins.xdotool, args, { env: { ...process.env, ...x } }).toString();
  const win = xdo('search', '--sync', '--onlyvisible', '--name', '^Vidya$').trim().split('\n')[0];
  const geometry = xdo('getwindowgeometry', win);
  console.log(`window: ${geometry.replace(/\s+/g, ' ').trim()}`);
  xdo('mousemove', '--window', win, '540', '705');
  xdo('click', '1');
  xdo('type', '--delay', '30', 'What is photosynthesis?');
  xdo('key', 'Return');

  const vidya = (...args) => execFileSync(bins.vidya, args, { env: { ...process.env, ...env } }).toString();
  await until('the answer to be stored', () => JSON.parse(vidya('stats', '--json')).questions >= 1, 120000);
  assert.match(vidya('conversations', 'list'), /What is photosynthesis\?/);
  await new Promise((r) => setTimeout(r, 1500));
  execFileSync(bins.import, ['-window', 'root', join(shots, 'window-answer.png')], { env: { ...process.env, ...x } });
  // The first source opens the cited page, drawn by pdfium through Tauri IPC.
  xdo('mousemove', '--window', win, '1150', '160');
  xdo('click', '1');
  await new Promise((r) => setTimeout(r, 4000));
  execFileSync(bins.import, ['-window', 'root', join(shots, 'window-page.png')], { env: { ...process.env, ...x } });
  assert.equal(app.exitCode, null, `the window is still running: ${app.output}`);
  windowState = { xdo, x, app, win };
});

/** A request from this machine as another device would make it: its socket bound to
 * `from` (127.0.0.x), so the server sees another address. Resolves {status, body, cookie}. */
function device(from, port, method, path, body, cookie) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({
      host: '127.0.0.1', port, method, path, localAddress: from,
      headers: { ...(data ? { 'Content-Type': 'application/json' } : {}), ...(cookie ? { Cookie: cookie } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, body: json, cookie: (res.headers['set-cookie'] || [''])[0].split(';')[0] });
      });
    });
    req.on('error', reject);
    req.end(data);
  });
}

test('Settings → Classroom in the window serves the class, and turning it off stops', { skip }, async () => {
  assert.ok(windowState, 'the first window test ran');
  const { xdo, x, app } = windowState;
  // The Settings tab (top bar), then Settings → Classroom's button (right-hand column).
  xdo('mousemove', '--window', windowState.win, '513', '28');
  xdo('click', '1');
  await new Promise((r) => setTimeout(r, 1000));
  xdo('mousemove', '--window', windowState.win, String(CLASSROOM_BUTTON.x), String(CLASSROOM_BUTTON.y));
  xdo('click', '1');
  const m = await until('classroom mode to start', () => /classroom mode on at port (\d+)/.exec(app.output), 30000);
  const port = Number(m[1]);
  await new Promise((r) => setTimeout(r, 1500));
  execFileSync(bins.import, ['-window', 'root', join(shots, 'window-classroom.png')], { env: { ...process.env, ...x } });

  // This machine is the teacher: it reads the class code.
  const info = await device('127.0.0.1', port, 'GET', '/api/classroom');
  assert.equal(info.status, 200);
  assert.equal(info.body.on, true);
  assert.match(info.body.code, /^\d{6}$/);
  // Another device joins with the code, may ask, and may not touch the library.
  const wrong = await device('127.0.0.9', port, 'POST', '/api/join', { code: info.body.code === '000000' ? '111111' : '000000', name: 'Ravi' });
  assert.equal(wrong.status, 403);
  const joined = await device('127.0.0.9', port, 'POST', '/api/join', { code: info.body.code, name: 'Asha' });
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  assert.match(joined.cookie, /^vidya_session=/);
  const books = await device('127.0.0.9', port, 'GET', '/api/books', undefined, joined.cookie);
  assert.equal(books.status, 403);
  const asked = await device('127.0.0.9', port, 'POST', '/api/ask', { question: 'What is photosynthesis?', stream: false }, joined.cookie);
  assert.equal(asked.status, 200, JSON.stringify(asked.body));
  assert.ok(asked.body.citations.length > 0);
  const seen = await device('127.0.0.1', port, 'GET', '/api/classroom');
  assert.deepEqual(seen.body.students.map((s) => s.name), ['Asha']);
  assert.equal(seen.body.questions_per_minute, 1);

  // The same button turns classroom mode off: nothing listens any more.
  xdo('mousemove', '--window', windowState.win, String(CLASSROOM_BUTTON.x), String(CLASSROOM_BUTTON.offY));
  xdo('click', '1');
  await until('classroom mode to stop', () => /classroom mode off/.test(app.output), 30000);
  await assert.rejects(device('127.0.0.9', port, 'GET', '/api/session'));
  assert.equal(app.exitCode, null, `the window is still running: ${app.output}`);
});
