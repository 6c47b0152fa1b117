// The Settings screen: Ollama host and model, default answer language and mode, token-budget
// preset, and for a class the other answer machines (one address per line) and the answers
// each writes at once. Saved in the library folder (settings.json) by the engine, which
// validates them. Only the teacher reaches this screen (the routes are the teacher's).

import * as api from './transport.js';
import { t } from './i18n.js';
import { text } from './render.js';

const $ = (id) => document.getElementById(id);
let current = null;

/** The settings last loaded or saved. */
export function settings() {
  return current;
}

function fill(s) {
  current = s;
  $('s-host').value = s.ollama_host;
  $('s-model').value = s.model;
  $('s-language').value = s.language;
  $('s-mode').value = s.mode;
  $('s-machines').value = (s.answer_machines || []).join('\n');
  $('s-at-once').value = String(s.answers_at_once || 1);
  document.querySelectorAll('input[name=budget]').forEach((r) => { r.checked = r.value === s.budget; });
}

export async function load() {
  const s = await api.call('get_settings');
  fill(s);
  return s;
}

/** Saves `changes` over the settings in effect now (read again: the setup wizard may have
 * changed the model meanwhile); returns the settings in effect. */
export async function save(changes) {
  const fresh = await api.call('get_settings');
  const s = await api.call('save_settings', { settings: { ...fresh, ...changes } });
  fill(s);
  return s;
}

/** Shows the classroom `c` (the `classroom` command's object) in Settings → Classroom. */
function showClassroom(c) {
  const on = Boolean(c && c.on);
  $('classroom-on').hidden = !on;
  $('classroom-toggle').dataset.on = on ? '1' : '';
  $('classroom-toggle').dataset.i18n = on ? 'classroom.turn_off' : 'classroom.turn_on';
  $('classroom-toggle').textContent = t($('classroom-toggle').dataset.i18n);
  $('classroom-toggle').classList.toggle('primary', !on);
  $('classroom-status').dataset.i18n = on ? 'classroom.on_note' : 'classroom.off_note';
  text($('classroom-status'), t($('classroom-status').dataset.i18n));
  $('classroom-status').className = on ? 'notice' : 'muted';
  if (!on) return;
  text($('classroom-address'), c.addresses.join('  ·  '));
  text($('classroom-code'), c.code || '–');
  $('classroom-qr').hidden = !c.qr_svg;
  // Vidya's own SVG, shown as an image (an image's SVG never runs script).
  if (c.qr_svg) $('classroom-qr').src = `data:image/svg+xml;base64,${btoa(c.qr_svg)}`;
}

/** Reads the classroom again (the desktop window only). */
export async function refreshClassroom() {
  if (!api.inApp) return;
  try { showClassroom(await api.call('classroom')); } catch { showClassroom(null); }
}

// Settings → Classroom: the desktop window turns classroom mode on and off (in a browser,
// `vidya serve --classroom` does).
function initClassroom() {
  if (!api.inApp) return;
  $('classroom-form').hidden = false;
  $('classroom-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const button = $('classroom-toggle');
    button.disabled = true;
    try {
      showClassroom(await api.call(button.dataset.on ? 'classroom_off' : 'classroom_on'));
    } catch (err) {
      $('classroom-status').className = 'error';
      text($('classroom-status'), err.message);
    } finally {
      button.disabled = false;
    }
  });
  refreshClassroom();
}

// The teacher PIN (the laptop only: in classroom mode another device signs in with it).
function initPin() {
  $('pin-form').hidden = false;
  $('pin-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const status = $('pin-status');
    const pin = $('pin').value.trim();
    try {
      await api.call('set_pin', { pin: pin || null });
      $('pin').value = '';
      status.className = 'notice';
      text(status, t(pin ? 'pin.saved' : 'pin.removed'));
    } catch (err) {
      status.className = 'error';
      text(status, err.message);
    }
  });
}

/** The answer machines typed, one per line (commas also separate them), each once. */
export function machineLines(value) {
  const out = [];
  for (const part of String(value).split(/[\n\r,]+/)) {
    const a = part.trim();
    if (a && !out.includes(a)) out.push(a);
  }
  return out;
}

export function init(onSaved) {
  initPin();
  initClassroom();
  $('settings-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const status = $('settings-status');
    const budget = document.querySelector('input[name=budget]:checked');
    try {
      const s = await save({
        ollama_host: $('s-host').value.trim(),
        model: $('s-model').value.trim(),
        language: $('s-language').value,
        mode: $('s-mode').value,
        budget: budget ? budget.value : 'balanced',
        answer_machines: machineLines($('s-machines').value),
        answers_at_once: Number.parseInt($('s-at-once').value, 10) || 1,
      });
      status.className = 'notice';
      text(status, t('settings.saved'));
      onSaved(s);
    } catch (err) {
      status.className = 'error';
      text(status, err.message);
    }
  });
}
