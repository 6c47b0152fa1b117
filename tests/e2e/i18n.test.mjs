// The interface's string files: every language has every English key, no empty string, and
// every key the page or the scripts use exists. Needs no browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ui = resolve(dirname(fileURLToPath(import.meta.url)), '../../ui');
const load = (lang) => JSON.parse(readFileSync(join(ui, 'i18n', `${lang}.json`), 'utf8'));
const en = load('en');

test('each language file has exactly the English keys, all translated', () => {
  for (const lang of ['hi', 'mr', 'kn', 'te', 'ta']) {
    const strings = load(lang);
    assert.deepEqual(Object.keys(strings).sort(), Object.keys(en).sort(), lang);
    for (const [k, v] of Object.entries(strings)) {
      assert.ok(v.trim(), `${lang} ${k} is empty`);
      // Placeholders survive translation.
      const names = (s) => (s.match(/\{\w+\}/g) || []).sort().join();
      assert.equal(names(v), names(en[k]), `${lang} ${k} placeholders`);
    }
    // Indic text, not English copied over (brand and format names aside).
    const same = Object.keys(en).filter((k) => strings[k] === en[k]);
    assert.ok(same.length <= 2, `${lang}: untranslated ${same}`);
  }
});

test('every key used by the page and the scripts exists', () => {
  const html = readFileSync(join(ui, 'index.html'), 'utf8');
  const used = new Set([...html.matchAll(/data-i18n(?:-placeholder|-title)?="([\w.]+)"/g)].map((m) => m[1]));
  for (const f of readdirSync(join(ui, 'js'))) {
    const js = readFileSync(join(ui, 'js', f), 'utf8');
    for (const m of js.matchAll(/\bt\('([\w.]+)'/g)) used.add(m[1]);
  }
  assert.ok(used.size > 50, `found ${used.size} keys`);
  for (const k of used) assert.ok(k in en, `missing key ${k}`);
});
