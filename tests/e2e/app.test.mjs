// Browser end-to-end tests: playwright-core drives Debian's chromium against `vidya serve`
// over a library built from the Biology 2e fixtures, with the Ollama test server as the
// model. Screenshots of every screen (English and Hindi, plus the other interface scripts)
// go to target/e2e-screenshots/ (VIDYA_E2E_OUT overrides).
//
// Run: `cargo build -p vidya-cli -p ollama-test-server && npm test --prefix tests/e2e`
// (`cargo xtask test` does both). Without chromium the suite skips, except under CI=true.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repo, vidyaBin, serverBin, chromiumBin, shots, missingBinaries, startProcess } from './support.mjs';

const fixtures = join(repo, 'tests', 'fixtures', 'biology2e');
const skip = missingBinaries();

// A model reply with HTML and script in it: it must be shown as text, never run. The two
// sentences around it are the textbook's (pages 152 and 153 of chapter 8), so they stay; the
// HTML line has no support in any source and grounding removes it from the final answer.
const REPLY = 'Plants, algae and cyanobacteria are the only organisms that can carry out photosynthesis [2].\n'
  + '<script>window.__pwned = 1</script> <img src=x onerror="window.__pwned = 2">\n'
  + '**Photosynthesis** stores the energy of sunlight in the carbon-carbon bonds of carbohydrate molecules [1].\n'
  // A sentence after the last one the test looks for, so that one is checked (and shown)
  // while the model still writes, not in the same moment as the final answer.
  + 'The energy stored in these bonds is released when the molecules are broken down [1].';

let work; let server; let serve; let baseUrl; let browser; let page; const children = [];


/** A one-page PDF (Helvetica) with `lines` of text: enough for pdfium and Vidya's reader. */
function tinyPdf(lines) {
  const esc = (s) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 12 Tf 56 760 Td 16 TL ${lines.map((l) => `(${esc(l)}) Tj T*`).join(' ')} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${Buffer.byteLength(stream)} >>\nstream\n${stream}\nendstream`,
  ];
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((o, i) => { offsets.push(Buffer.byteLength(out)); out += `${i + 1} 0 obj\n${o}\nendobj\n`; });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

async function shot(name) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

async function openScreen(name) {
  await page.click(`#tab-${name}`);
  await page.waitForSelector(`#screen-${name}:not([hidden])`);
}

async function askQuestion(q) {
  const before = await page.locator('.msg.answer').count();
  await page.fill('#question', q);
  await page.click('#send');
  await page.waitForFunction((n) => {
    const all = document.querySelectorAll('.msg.answer');
    return all.length > n && all[all.length - 1].dataset.status;
  }, before, { timeout: 120000 });
  return page.locator('.msg.answer').last();
}

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'vidya-e2e-'));
  const library = join(work, 'library');
  const env = { VIDYA_LIBRARY: library, VIDYA_TRACE_DIR: join(work, 'traces'), VIDYA_LOG: 'warn' };
  // The library starts with chapter 7; the test drops chapter 8 through the browser.
  execFileSync(vidyaBin, ['ingest', join(fixtures, 'ch07.pdf')], { env: { ...process.env, ...env }, stdio: 'inherit' });
  // The setup wizard has its own test (setup.test.mjs): here it counts as done.
  writeFileSync(join(library, 'settings.json'), JSON.stringify({ setup_done: true }));
  server = await startProcess(children, serverBin, ['--port', '0', '--reply', REPLY, '--token-delay-ms', '40'], {}, /listening on (http:\/\/[\d.:]+)/);
  serve = await startProcess(children, vidyaBin, ['serve', '--port', '0', '--ollama', server.match[1]], env, /at (http:\/\/127\.0\.0\.1:\d+)/);
  baseUrl = serve.match[1];
  browser = await chromium.launch({ executablePath: chromiumBin, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.on('dialog', (d) => d.accept());
  page.on('pageerror', (e) => { console.error('page error:', e.message); });
  await page.goto(baseUrl);
  await page.waitForSelector('body[data-ready=true]');
});

after(async () => {
  if (browser) await browser.close();
  for (const c of children) c.kill('SIGTERM');
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a dropped PDF shows progress up to 100 % and joins the library', { skip }, async () => {
  await openScreen('library');
  await page.waitForSelector('#book-rows tr');
  // Record every progress value the bar shows, to check it only goes up and ends at 100.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver(() => {
      const bar = document.querySelector('#ingest-queue li:first-child progress');
      if (bar) window.__progress.push(bar.value);
    }).observe(document.getElementById('ingest-queue'), { subtree: true, childList: true, attributes: true, characterData: true });
  });
  const bytes = (await import('node:fs')).readFileSync(join(fixtures, 'ch08.pdf')).toString('base64');
  await page.evaluate((b64) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([data], 'ch08.pdf', { type: 'application/pdf' }));
    document.getElementById('drop-zone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, bytes);
  const item = page.locator('#ingest-queue li').first();
  await item.locator('.status').filter({ hasText: 'Ready' }).waitFor({ timeout: 120000 });
  assert.equal(await item.locator('progress').evaluate((p) => p.value), 100);
  const values = await page.evaluate(() => window.__progress.filter((v) => v > 0));
  assert.ok(values.length > 0, 'progress was shown');
  for (let i = 1; i < values.length; i++) assert.ok(values[i] >= values[i - 1], `progress went back: ${values}`);
  await page.waitForFunction(() => document.querySelectorAll('#book-rows tr').length === 2);
  assert.match(await page.locator('#book-rows').innerText(), /Chapter 8: Photosynthesis/);
  await shot('library-en');
});

test('a damaged file is refused in words and the library stays usable', { skip }, async () => {
  const bad = join(work, 'broken.pdf');
  writeFileSync(bad, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 0x41)]));
  await page.setInputFiles('#file-input', bad);
  const item = page.locator('#ingest-queue li').first();
  await item.locator('div.status').filter({ hasText: /damaged|incomplete/ }).waitFor({ timeout: 60000 });
  assert.ok(await item.evaluate((li) => li.classList.contains('failed')));
  // The engine's full message, with what to do, is one click away.
  assert.match(await item.locator('details').innerText({ timeout: 5000 }).catch(() => ''), /Details|damaged/);
  assert.equal(await page.locator('#book-rows tr').count(), 2, 'both books are still listed');
  await shot('library-error-en');
});

test('a Kruti Dev book is converted and the teacher is told on the library screen', { skip }, async () => {
  await page.setInputFiles('#file-input', join(repo, 'tests/fixtures/indic/hi_krutidev010_legacy.pdf'));
  const item = page.locator('#ingest-queue li').first();
  await item.locator('.status').filter({ hasText: 'Ready' }).waitFor({ timeout: 120000 });
  await item.locator('.warnings').filter({ hasText: /converted from the old Kruti Dev font/ }).waitFor();
  const row = page.locator('#book-rows tr').filter({ hasText: 'हिन्दी' }).last();
  assert.match(await row.locator('.warnings').innerText(), /Kruti Dev/);
  await shot('library-krutidev-en');
  // The converted Hindi is searchable: a Hindi question quotes the book in Devanagari.
  await openScreen('ask');
  const last = await page.locator('#book-filter option').last().getAttribute('value');
  await page.selectOption('#book-filter', last);
  await askQuestion('पैंथर्स की डिफ़ेन्स ने लीग में कितने अंक दिए?');
  assert.match(await page.locator('#source-list').innerText(), /[\u0900-\u097F]{3,}/);
  await page.selectOption('#book-filter', '');
  await openScreen('library');
});

test('a question streams an answer whose citation opens the cited page', { skip }, async () => {
  await openScreen('ask');
  await page.click('#new-conversation');
  // Watch the answer bubble while it streams.
  await page.evaluate(() => {
    window.__streamed = [];
    new MutationObserver(() => {
      const s = document.querySelector('.msg.answer:last-of-type .streaming');
      if (s && !s.classList.contains('muted')) window.__streamed.push(s.textContent);
    }).observe(document.getElementById('messages'), { subtree: true, childList: true, characterData: true });
  });
  const answer = await askQuestion('What is photosynthesis?');
  const partial = await page.evaluate(() => window.__streamed);
  // Only checked sentences stream, each whole, one after another (answer/stream_check.rs).
  assert.ok(partial.length >= 2, `checked sentences arrived one by one (${partial.length} updates): ${JSON.stringify(partial)}`);
  assert.ok(partial[0].length < partial[partial.length - 1].length);
  for (const p of partial) assert.match(p, /[.!?\]]$/, `a whole sentence at a time: ${p}`);
  assert.equal(await answer.getAttribute('data-status'), 'answered');
  // The model's line of HTML says nothing the book says: it was never shown, not even as it
  // streamed, and never ran.
  assert.ok(partial.every((t) => !t.includes('__pwned')), JSON.stringify(partial));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // The final answer keeps the two textbook sentences and drops the unsupported HTML line.
  const shown = await answer.locator('.body').innerText();
  assert.match(shown, /only organisms that can carry out photosynthesis/);
  assert.match(shown, /carbon-carbon bonds/);
  assert.doesNotMatch(shown, /__pwned/);
  assert.equal(await answer.locator('.body script, .body img').count(), 0);
  // [1] opens the page image with the passage highlighted.
  await answer.locator('button.cite').first().click();
  await page.waitForFunction(() => {
    const img = document.getElementById('page-image');
    return !img.hidden && img.complete && img.naturalWidth > 0;
  }, null, { timeout: 60000 });
  const caption = await page.locator('#page-caption').innerText();
  assert.match(caption, /Biology 2e.*page \d+/);
  assert.ok(await page.locator('#source-list li').count() >= 1);
  await shot('ask-en');
});

test('answers keep streaming while the library screen is open', { skip }, async () => {
  await openScreen('ask');
  const before = await page.locator('.msg.answer').count();
  await page.fill('#question', 'How do chloroplasts capture light energy?');
  await page.click('#send');
  await page.waitForFunction((n) => document.querySelectorAll('.msg.answer').length > n, before);
  await openScreen('library');
  // The library screen works while the answer streams.
  await page.waitForSelector('#book-rows tr');
  assert.equal(await page.locator('#book-rows tr').count(), 3);
  const streamingMeanwhile = await page.evaluate(() => !document.querySelector('.msg.answer:last-of-type').dataset.status);
  assert.ok(streamingMeanwhile, 'the answer was still streaming while the library screen was used');
  await openScreen('ask');
  await page.waitForFunction(() => document.querySelector('.msg.answer:last-of-type').dataset.status, null, { timeout: 120000 });
  assert.ok(await page.locator('.msg.answer').last().locator('button.cite').count() >= 1);
});

test('a script in a PDF\'s text is shown as text in the sources', { skip }, async () => {
  const pdf = join(work, 'zorblax.pdf');
  writeFileSync(pdf, tinyPdf([
    'Chapter 1: Zorblax crystals',
    'The zorblax crystal glows blue when it is heated over a flame.',
    'Teachers write <img src=x onerror="window.__pwned = 3"> on the board when the zorblax crystal glows.',
    'A cooled zorblax crystal stops glowing after a few minutes.',
  ]));
  await openScreen('library');
  await page.setInputFiles('#file-input', pdf);
  await page.locator('#ingest-queue li').first().locator('.status').filter({ hasText: 'Ready' }).waitFor({ timeout: 60000 });
  await openScreen('ask');
  // The one-page PDF has no title metadata: the book is named after its file.
  await page.selectOption('#book-filter', { label: 'zorblax' });
  await askQuestion('What do teachers write on the board when the zorblax crystal glows?');
  const sources = await page.locator('#source-list').innerText();
  assert.match(sources, /<img src=x onerror=/);
  assert.equal(await page.locator('#source-list img').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await page.selectOption('#book-filter', '');
});

test('the renderer shows any HTML in Markdown as text', { skip }, async () => {
  const result = await page.evaluate(async () => {
    const { renderAnswer } = await import('/js/render.js');
    const box = document.createElement('div');
    renderAnswer(box, '**bold** [1] [9] <iframe src="javascript:alert(1)"></iframe> <svg onload="window.__pwned=4"></svg> [x](javascript:alert(1)) `<b>`', 1, () => {});
    return { html: box.innerHTML, text: box.textContent, cites: box.querySelectorAll('button.cite').length };
  });
  assert.equal(result.cites, 1, 'only [1] exists, [9] stays text');
  assert.match(result.text, /<iframe src="javascript:alert\(1\)"><\/iframe>/);
  assert.match(result.text, /<svg onload=/);
  assert.doesNotMatch(result.html, /<(iframe|svg|a|script)\b/);
  assert.doesNotMatch(result.html, /href=/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});

test('the dashboard and settings screens show real figures', { skip }, async () => {
  await openScreen('dashboard');
  await page.waitForFunction(() => document.getElementById('d-questions').textContent !== '–');
  const questions = Number(await page.locator('#d-questions').innerText());
  assert.ok(questions >= 3, `questions asked: ${questions}`);
  assert.match(await page.locator('#d-median').innerText(), /\d+\.\d s/);
  assert.match(await page.locator('#d-saved').innerText(), /\d+ %/);
  assert.ok(await page.locator('#chart-stages svg rect').count() >= 3);
  await shot('dashboard-en');
  await openScreen('settings');
  assert.match(await page.locator('#s-host').inputValue(), /^http:\/\/127\.0\.0\.1:\d+/);
  await shot('settings-en');
});

test('the interface switches to Hindi', { skip }, async () => {
  await page.selectOption('#ui-language', 'hi');
  await page.waitForFunction(() => document.getElementById('tab-ask').textContent === 'पूछें');
  assert.equal(await page.locator('html').getAttribute('lang'), 'hi');
  assert.equal(await page.locator('#tab-library').innerText(), 'पुस्तकालय');
  for (const screen of ['library', 'dashboard', 'settings']) {
    await openScreen(screen);
    await shot(`${screen}-hi`);
  }
  await openScreen('ask');
  const answer = await askQuestion('प्रकाश संश्लेषण क्या है?');
  assert.ok(await answer.getAttribute('data-status'));
  await page.locator('#source-list li').first().click();
  await page.waitForFunction(() => {
    const img = document.getElementById('page-image');
    return !img.hidden && img.complete && img.naturalWidth > 0;
  }, null, { timeout: 60000 });
  await shot('ask-hi');
  // The choice is kept: a reload comes back in Hindi.
  await page.reload();
  await page.waitForSelector('body[data-ready=true]');
  assert.equal(await page.locator('#tab-ask').innerText(), 'पूछें');
});

test('every interface script renders with its bundled font', { skip }, async () => {
  const samples = { mr: ['Vidya Devanagari', 'ग्रंथालय'], kn: ['Vidya Kannada', 'ಗ್ರಂಥಾಲಯ'], te: ['Vidya Telugu', 'గ్రంథాలయం'], ta: ['Vidya Tamil', 'நூலகம்'], hi: ['Vidya Devanagari', 'पुस्तकालय'] };
  for (const [lang, [family, word]] of Object.entries(samples)) {
    await page.selectOption('#ui-language', lang);
    await page.waitForFunction((w) => document.getElementById('tab-library').textContent === w, word);
    const faces = await page.evaluate(async ([f, w]) => (await document.fonts.load(`18px "${f}"`, w)).length, [family, word]);
    assert.ok(faces > 0, `${family} loads for ${lang}`);
    await openScreen('library');
    await shot(`library-${lang}`);
  }
  await page.selectOption('#ui-language', 'en');
  await page.waitForFunction(() => document.getElementById('tab-ask').textContent === 'Ask');
});

test('with Ollama down the answer quotes the textbook and says what to do', { skip }, async () => {
  await openScreen('settings');
  await page.fill('#s-host', 'http://127.0.0.1:9');
  await page.click('#settings-form button[type=submit]');
  await page.locator('#settings-status.notice').waitFor();
  await openScreen('ask');
  await page.click('#new-conversation');
  const answer = await askQuestion('What are the light-dependent reactions?');
  assert.equal(await answer.getAttribute('data-status'), 'extractive');
  const note = answer.locator('.note[data-kind=not_running]');
  await note.waitFor();
  assert.match(await note.innerText(), /Ollama/);
  assert.ok(await answer.locator('button.cite').count() >= 1, 'the textbook quotes are cited');
  await note.scrollIntoViewIfNeeded();
  await shot('ollama-down-en');
});
