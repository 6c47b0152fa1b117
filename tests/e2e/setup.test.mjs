// The first-run setup wizard in a real browser (playwright-core + Debian's chromium) against
// `vidya serve` on a fresh library and the Ollama test server started without models: it opens
// by itself, walks the six steps, imports a .gguf file found on the "USB stick" (offline),
// downloads a model with progress, asks the test question about the sample chapter, finishes,
// and opens again from Settings in Hindi; then shows what a teacher sees when Ollama is absent.
// Screenshots of every step, English and Hindi: target/e2e-screenshots/setup-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repo, vidyaBin, serverBin, chromiumBin, shots, missingBinaries, startProcess } from './support.mjs';

const skip = missingBinaries();
const REPLY = 'In the light-dependent reactions, chlorophyll absorbs energy from sunlight and converts it into stored chemical energy [1].';
// The sample question in Hindi (the system prompt names the language as "Hindi (हिन्दी)").
const REPLY_HI = 'प्रकाश पर निर्भर अभिक्रियाओं में क्लोरोफिल सूर्य के प्रकाश की ऊर्जा सोखकर उसे रासायनिक ऊर्जा में बदलता है [1]।';
const GGUF_NAME = 'Llama-3.2-1B-Instruct-Q4_K_M.gguf';

let work; let usb; let server; let browser; let page; const children = [];


const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`) });
const stepName = () => page.getAttribute('#setup-panel', 'data-step');

async function next(expected) {
  await page.click('#setup-next');
  await page.waitForFunction((s) => document.getElementById('setup-panel').dataset.step === s, expected);
}

async function waitOutcome() {
  await page.waitForSelector('#setup-outcome:not([hidden])', { timeout: 180000 });
  return { cls: await page.getAttribute('#setup-outcome', 'class'), text: await page.textContent('#setup-outcome') };
}

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'vidya-e2e-setup-'));
  usb = join(work, 'usb');
  mkdirSync(usb);
  // A GGUF file as far as Ollama's first check goes: the magic, version 3, padding (2 MiB).
  const gguf = Buffer.alloc(2 << 20);
  gguf.write('GGUF', 0, 'latin1');
  gguf.writeUInt32LE(3, 4);
  writeFileSync(join(usb, GGUF_NAME), gguf);
  server = await startProcess(children, serverBin, ['--port', '0', '--no-models', '--pullable', 'llama3.2:1b=1321098329', '--pull-chunk-delay-ms', '150', '--reply', REPLY, '--rule', `Hindi (हिन्दी)=>${REPLY_HI}`, '--token-delay-ms', '20'], {}, /listening on (http:\/\/[\d.:]+)/);
  const env = {
    VIDYA_LIBRARY: join(work, 'library'), XDG_DATA_HOME: join(work, 'data'), VIDYA_TRACE_DIR: join(work, 'traces'),
    VIDYA_MEDIA_DIRS: usb, VIDYA_OLLAMA_PROGRAM: '', VIDYA_LOG: 'warn',
  };
  const serve = await startProcess(children, vidyaBin, ['serve', '--port', '0', '--ollama', server.match[1]], env, /at (http:\/\/127\.0\.0\.1:\d+)/);
  browser = await chromium.launch({ executablePath: chromiumBin, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.on('pageerror', (e) => { console.error('page error:', e.message); });
  await page.goto(serve.match[1]);
  await page.waitForSelector('body[data-ready=true]');
});

after(async () => {
  if (browser) await browser.close();
  for (const c of children) c.kill('SIGTERM');
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the wizard opens on first start and gets a model in without internet', { skip }, async () => {
  await page.waitForSelector('#screen-setup:not([hidden])');
  await page.waitForSelector('#setup-panel[data-step=files] .notice.ok');
  assert.match(await page.textContent('#setup-panel'), /files that came with Vidya are present and undamaged/);
  await shot('setup-1-files-en');

  assert.doesNotMatch(await page.textContent('#setup-panel'), /null|undefined|\{\w+\}/);
  await next('library');
  assert.match(await page.textContent('#setup-panel'), /Free space on this disk: [\d.]+ GB/);
  assert.doesNotMatch(await page.textContent('#setup-panel'), /null|undefined|\{\w+\}/);
  await shot('setup-2-library-en');

  await next('ollama');
  assert.match(await page.textContent('#setup-panel'), /Ollama is running \(version 0\.6\.0\)/);
  await shot('setup-3-ollama-en');

  await next('model');
  assert.match(await page.textContent('#setup-panel'), /No model is in Ollama yet/);
  const found = page.locator('#setup-gguf li', { hasText: GGUF_NAME });
  await found.waitFor();
  await shot('setup-4-model-en');
  // Record every progress value shown, to check the import reports progress.
  await page.evaluate(() => {
    window.__seen = [];
    // Every text the label was given, from the records: several updates in one task
    // (a fast import) reach the observer as one call, so reading the label would miss them.
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.target.id !== 'setup-progress-label') continue;
        for (const n of r.addedNodes) if (n.nodeType === Node.TEXT_NODE && n.data) window.__seen.push(n.data);
      }
    }).observe(document.getElementById('setup-panel'), { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await found.locator('button').click();
  let out = await waitOutcome();
  assert.match(out.cls, /ok/, out.text);
  assert.match(out.text, /llama-3\.2-1b-instruct-q4_k_m is ready/);
  assert.match(await page.textContent('#setup-installed'), /llama-3\.2-1b-instruct-q4_k_m:latest/);
  assert.match(await page.textContent('#setup-panel'), /Vidya uses: llama-3\.2-1b-instruct-q4_k_m/);
  const seen = await page.evaluate(() => window.__seen);
  assert.ok(!seen.some((s) => /\{\w+\}|undefined/.test(s)), JSON.stringify(seen));
  assert.ok(seen.some((s) => s.startsWith('Checking the file') || s.startsWith('Copying into Ollama') || s.startsWith('Preparing the model')), JSON.stringify(seen));
  await shot('setup-4-model-imported-en');

  // Online: download by name, with progress that only goes up.
  await page.evaluate(() => { window.__seen = []; });
  await page.fill('#setup-pull-name', 'llama3.2:1b');
  await page.click('#setup-pull-form button[type=submit]');
  await page.waitForFunction(() => window.__seen.some((s) => /^Downloading \d+ %/.test(s)));
  await shot('setup-4-model-downloading-en');
  out = await waitOutcome();
  assert.match(out.text, /llama3\.2:1b is ready/, out.text);
  const pct = (await page.evaluate(() => window.__seen)).map((s) => /^Downloading (\d+) %/.exec(s)).filter(Boolean).map((m) => Number(m[1]));
  assert.ok(pct.length >= 3, JSON.stringify(pct));
  assert.deepEqual(pct, [...pct].sort((a, b) => a - b));

  await next('test');
  await shot('setup-5-test-en');
  await page.click('#setup-run-test');
  out = await waitOutcome();
  assert.match(out.text, /It works/, out.text);
  assert.match(await page.textContent('#setup-answer'), /chlorophyll absorbs energy/);
  assert.match(await page.textContent('#setup-sources'), /Photosynthesis.*page 154/);
  await shot('setup-5-test-answered-en');

  await next('done');
  await shot('setup-6-done-en');
  await page.click('#setup-finish');
  await page.waitForSelector('#screen-ask:not([hidden])');
  const health = await page.evaluate(() => fetch('/health').then((r) => r.json()));
  assert.equal(health.setup_done, true);
  assert.deepEqual(health.problems, []);
});

test('the wizard opens again from Settings, in Hindi', { skip }, async () => {
  await page.selectOption('#ui-language', 'hi');
  await page.click('#tab-settings');
  await page.click('#open-setup');
  await page.waitForSelector('#setup-panel[data-step=files] .notice.ok');
  assert.match(await page.textContent('#setup-title'), /Vidya को तैयार करें/);
  const names = { files: 1, library: 2, ollama: 3, model: 4, test: 5, done: 6 };
  for (const step of ['files', 'library', 'ollama', 'model', 'test']) {
    assert.equal(await stepName(), step);
    if (step === 'test') {
      await page.click('#setup-run-test');
      const out = await waitOutcome();
      assert.match(out.cls, /ok/, out.text);
      assert.match(await page.textContent('#setup-answer'), /क्लोरोफिल/);
    }
    await shot(`setup-${names[step]}-${step}-hi`);
    await next(Object.keys(names)[names[step]]);
  }
  await shot('setup-6-done-hi');
  // The Hindi strings are Hindi, not English left over.
  assert.match(await page.textContent('#setup-finish'), /[\u0900-\u097F]/);
  await page.click('#setup-finish');
  await page.waitForSelector('#screen-ask:not([hidden])');
});

test('with Ollama gone, the wizard says so and names the installer on the USB stick', { skip }, async () => {
  writeFileSync(join(usb, 'ollama-linux-amd64.tgz'), Buffer.alloc(2 << 20));
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
  for (const lang of ['en', 'hi']) {
    await page.selectOption('#ui-language', lang);
    await page.click('#tab-settings');
    await page.click('#open-setup');
    await page.waitForSelector('#setup-panel[data-step=files] .notice.ok');
    await next('library');
    await next('ollama');
    const text = await page.textContent('#setup-panel');
    assert.match(text, /ollama-linux-amd64\.tgz/);
    if (lang === 'en') assert.match(text, /Ollama is not installed/);
    await shot(`setup-3-ollama-absent-${lang}`);
    await next('model');
    await shot(`setup-4-model-no-ollama-${lang}`);
    await page.click('#setup-skip');
    await page.waitForSelector('#screen-ask:not([hidden])');
  }
});
