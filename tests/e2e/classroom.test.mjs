// Classroom mode in a real browser: `vidya serve --classroom` over a library holding Biology
// 2e chapter 8, two students on phone-sized pages. Each student's page reaches the server
// through a small TCP relay whose outgoing socket is bound to 127.0.0.2 / 127.0.0.3, so the
// server sees two other devices (only 127.0.0.1 and ::1 are the teacher's machine). Each
// student has their own browser context (own cookies), as two phones would.
//
// Run: `cargo build -p vidya-cli -p ollama-test-server && npm test --prefix tests/e2e`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repo, vidyaBin, serverBin, chromiumBin, shots, missingBinaries, startProcess } from './support.mjs';

const skip = missingBinaries();
const REPLY = 'In the light-dependent reactions, chlorophyll absorbs energy from sunlight and converts it into stored chemical energy [1].';
const PHONE = { width: 360, height: 740 };

let work; let browser; let baseUrl; let code; const children = []; const relays = [];

/** A relay on 127.0.0.1 whose connections reach `port` from `localAddress`. Resolves its URL. */
function relay(port, localAddress) {
  return new Promise((resolve) => {
    const server = net.createServer((client) => {
      const upstream = net.connect({ host: '127.0.0.1', port, localAddress });
      client.pipe(upstream).pipe(client);
      const close = () => { client.destroy(); upstream.destroy(); };
      client.on('error', close);
      upstream.on('error', close);
    });
    relays.push(server);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`));
  });
}

/** A student's phone: its own browser context, opened at `url`. */
async function phone(url) {
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  page.on('pageerror', (e) => { console.error('page error:', e.message); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready=true]');
  return page;
}

async function joinClass(page, name) {
  await page.fill('#join-code', code);
  await page.fill('#join-name', name);
  await page.click('#join-button');
  await page.waitForSelector('body[data-role=student][data-ready=true]');
}

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'vidya-classroom-'));
  const library = join(work, 'library');
  const env = { VIDYA_LIBRARY: library, VIDYA_TRACE_DIR: join(work, 'traces'), VIDYA_LOG: 'warn' };
  execFileSync(vidyaBin, ['ingest', join(repo, 'tests', 'fixtures', 'biology2e', 'ch08.pdf')], { env: { ...process.env, ...env }, stdio: 'inherit' });
  // A new library (the setup wizard never run): the teacher's page still opens on the Dashboard.
  const model = await startProcess(children, serverBin, ['--port', '0', '--reply', REPLY, '--token-delay-ms', '10'], {}, /listening on (http:\/\/[\d.:]+)/);
  // Loopback only: the test opens nothing to the network.
  const serve = await startProcess(children, vidyaBin, ['serve', '--classroom', '--bind', '127.0.0.1', '--port', '0', '--ollama', model.match[1]], env,
    /at (http:\/\/127\.0\.0\.1:(\d+))[\s\S]*join code (\d{6})/);
  baseUrl = serve.match[1];
  code = serve.match[3];
  browser = await chromium.launch({ executablePath: chromiumBin, args: ['--no-sandbox', '--disable-gpu'] });
});

after(async () => {
  if (browser) await browser.close();
  for (const r of relays) r.close();
  for (const c of children) c.kill('SIGTERM');
  if (work) rmSync(work, { recursive: true, force: true });
});

test('students join with the code, ask on a phone, see only their own conversations, and are told when the class ends', { skip }, async () => {
  const port = new URL(baseUrl).port;
  const asha = await phone(await relay(port, '127.0.0.2'));
  const ravi = await phone(await relay(port, '127.0.0.3'));

  // Before joining: the join form alone, no teacher screens.
  assert.equal(await asha.locator('#screen-join').isVisible(), true);
  assert.equal(await asha.locator('.tabs').isVisible(), false);
  await asha.screenshot({ path: join(shots, 'classroom-join-phone-en.png') });
  // A wrong code is refused in words.
  await asha.fill('#join-code', code === '000000' ? '111111' : '000000');
  await asha.fill('#join-name', 'Asha');
  await asha.click('#join-button');
  await asha.locator('#join-error').filter({ hasText: /not the class code/ }).waitFor();

  await joinClass(asha, 'Asha');
  // The Ask screen alone: no Library, Dashboard or Settings, and it fits the phone.
  for (const tab of ['#tab-library', '#tab-dashboard', '#tab-settings']) {
    assert.equal(await asha.locator(tab).isVisible(), false, tab);
  }
  assert.ok(await asha.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), 'no sideways scrolling at 360 px');
  await asha.fill('#question', 'how does chlorophyll capture light energy');
  await asha.click('#send');
  await asha.waitForFunction(() => {
    const all = document.querySelectorAll('.msg.answer');
    return all.length > 0 && all[all.length - 1].dataset.status;
  }, null, { timeout: 120000 });
  const answer = asha.locator('.msg.answer').last();
  assert.equal(await answer.getAttribute('data-status'), 'answered');
  await answer.locator('button.cite').first().click();
  await asha.waitForFunction(() => {
    const img = document.getElementById('page-image');
    return !img.hidden && img.complete && img.naturalWidth > 0;
  }, null, { timeout: 60000 });
  await asha.screenshot({ path: join(shots, 'classroom-student-phone-en.png'), fullPage: true });
  const conversations = await asha.evaluate(async () => (await (await fetch('/api/conversations')).json()).length);
  assert.equal(conversations, 1);

  // Ravi joins on his own phone: Asha's conversation is not his to see.
  await joinClass(ravi, 'Ravi');
  const seen = await ravi.evaluate(async () => {
    const list = await (await fetch('/api/conversations')).json();
    return list.length;
  });
  assert.equal(seen, 0);
  const settings = await ravi.evaluate(async () => (await fetch('/api/settings')).status);
  assert.equal(settings, 403, 'a student cannot read the settings');

  // A device name with markup in it: the teacher's Dashboard shows it as text.
  const prank = await phone(await relay(port, '127.0.0.4'));
  await joinClass(prank, '<img src=x onerror="window.__pwned=1">');

  // The teacher's Dashboard (this machine): the address, the QR code, the code and the
  // connected devices; the teacher ends the class there and both pages say so.
  const teacher = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  await teacher.goto(baseUrl);
  await teacher.waitForSelector('body[data-ready=true]');
  // The class in session opens on the Dashboard, not on the setup wizard.
  await teacher.waitForSelector('#classroom:not([hidden])');
  assert.equal(await teacher.locator('#screen-setup').isVisible(), false);
  assert.equal(await teacher.locator('#class-code').innerText(), code);
  assert.match(await teacher.locator('#class-address').innerText(), /http:\/\//);
  await teacher.waitForFunction(() => document.getElementById('class-qr').naturalWidth > 0);
  const devices = await teacher.locator('#class-students li').allInnerTexts();
  assert.equal(devices.length, 3);
  assert.ok(devices.some((d) => d.startsWith('Asha · questions: 1')), devices.join(' | '));
  assert.ok(devices.some((d) => d.includes('<img src=x')), 'the markup is shown as text');
  assert.equal(await teacher.evaluate(() => window.__pwned), undefined);
  assert.equal(await teacher.locator('#class-students img').count(), 0);
  // The class report: Asha's question under the page it was answered from, per device too,
  // and in the CSV; the answer machines: this laptop's Ollama, up, one answer written.
  await teacher.waitForFunction(() => document.querySelectorAll('#report-groups details').length > 0);
  const byPage = await teacher.locator('#report-groups').textContent();
  assert.ok(byPage.includes('how does chlorophyll capture light energy'), byPage);
  assert.match(byPage, /page \d+/i);
  assert.ok((await teacher.locator('#report-devices').textContent()).includes('Asha'));
  const csv = await teacher.evaluate(async () => (await fetch(document.getElementById('report-csv-link').href)).text());
  assert.ok(csv.split('\n').some((l) => l.includes('Asha') && l.includes('how does chlorophyll capture light energy')), csv);
  await teacher.waitForFunction(() => document.querySelectorAll('#machine-rows tr').length === 1);
  assert.equal(await teacher.locator('#machine-rows tr.up').count(), 1);
  assert.match(await teacher.locator('#machine-rows tr').innerText(), /Up[\s\S]*1/);
  await teacher.screenshot({ path: join(shots, 'classroom-teacher-dashboard-en.png'), fullPage: true });
  // The teacher sets a PIN on the laptop's Settings screen; on a tablet, the PIN gives the
  // teacher's screens.
  await teacher.click('#tab-settings');
  await teacher.fill('#pin', '2468');
  await teacher.click('#pin-form button[type=submit]');
  await teacher.locator('#pin-status').filter({ hasText: /PIN saved/ }).waitFor();
  const tablet = await phone(await relay(port, '127.0.0.5'));
  await tablet.click('#teacher-signin summary');
  await tablet.fill('#teacher-pin', '2468');
  await tablet.click('#teacher-button');
  await tablet.waitForSelector('#tab-library:visible', { timeout: 20000 });
  await tablet.click('#tab-library');
  await tablet.waitForSelector('#book-rows tr');
  await teacher.click('#tab-dashboard');
  await teacher.click('#class-end');
  await teacher.waitForSelector('#class-start:not([hidden])');
  for (const p of [asha, ravi]) {
    await p.waitForSelector('body[data-role=none] #screen-join:not([hidden])', { timeout: 20000 });
    assert.match(await p.locator('#join-note').innerText(), /class has ended/);
  }
  await ravi.screenshot({ path: join(shots, 'classroom-ended-phone-en.png') });
});
