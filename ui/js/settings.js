// The Settings screen: Ollama host and model, default answer language and mode, token-budget
// preset. Saved in the library folder (settings.json) by the engine, which validates them.

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

// The teacher PIN (browser on the laptop only: it serves classroom mode).
function initPin() {
  if (api.inApp) return;
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

export function init(onSaved) {
  initPin();
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
