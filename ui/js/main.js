// Start-up: load the settings and the interface language, wire the four screens.

import * as api from './transport.js';
import * as i18n from './i18n.js';
import * as ask from './ask.js';
import * as library from './library.js';
import * as dashboard from './dashboard.js';
import * as settings from './settings.js';
import * as setup from './setup.js';
import { fillLanguageMenus } from './languages.js';

const $ = (id) => document.getElementById(id);

function show(screen) {
  document.querySelectorAll('.tabs button').forEach((b) => b.setAttribute('aria-selected', String(b.dataset.screen === screen)));
  document.querySelectorAll('.screen').forEach((s) => { s.hidden = s.id !== `screen-${screen}`; });
  if (screen === 'library') library.refreshBooks();
  if (screen === 'dashboard') dashboard.refresh();
}

// Bundled files that are missing or damaged: a banner naming each file and the fix.
function showProblems(problems) {
  const banner = $('problems');
  banner.replaceChildren(...problems.map((p) => {
    const li = document.createElement('li');
    li.textContent = p;
    return li;
  }));
  banner.hidden = problems.length === 0;
}

async function start() {
  fillLanguageMenus(document);
  let s = null;
  try { s = await settings.load(); } catch (e) { ask.toast(e.message); }
  const lang = (s && s.ui_language) || i18n.savedLanguage() || 'en';
  await i18n.setLanguage(lang);
  $('ui-language').value = i18n.language();
  if (s) ask.setDefaults(s);

  document.querySelectorAll('.tabs button').forEach((b) => b.addEventListener('click', () => show(b.dataset.screen)));
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  $('tab-ask').parentElement.addEventListener('keydown', (e) => {
    const tabs = [...document.querySelectorAll('.tabs button')];
    const i = tabs.indexOf(document.activeElement);
    if (i < 0 || !['ArrowLeft', 'ArrowRight'].includes(e.key)) return;
    const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    show(next.dataset.screen);
  });
  $('ui-language').addEventListener('change', async (e) => {
    await i18n.setLanguage(e.target.value);
    ask.relabel();
    setup.relabel();
    library.refreshBooks();
    try { await settings.save({ ui_language: i18n.language() }); } catch { /* kept in this browser */ }
  });
  ask.init();
  library.init((books) => ask.setBooks(books));
  settings.init((saved) => ask.setDefaults(saved));
  setup.init(async () => {
    show('ask');
    $('question').focus();
    try { ask.setDefaults(await settings.load()); } catch { /* the next save reads them again */ }
  });
  await library.refreshBooks();
  let health = null;
  try { health = await api.call('health'); } catch { /* the screens say what is wrong */ }
  showProblems(health ? health.problems : []);
  document.body.dataset.ready = 'true';
  if (s && !s.setup_done) await setup.open();
  else $('question').focus();
  api.ready();
}

start();
