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
});
