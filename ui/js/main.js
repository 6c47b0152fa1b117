// Start-up: load the settings and the interface language, wire the four screens; in
// classroom mode, a student's device gets the join form, then the Ask screen alone.

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
  // The Dashboard may have ended or restarted the class meanwhile.
  if (screen === 'settings') settings.refreshClassroom();
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

// After an update of Vidya that changed how passages are searched, the stored passages are
// prepared again in the background (App::refresh_vectors): say how far, until it is done.
const UPDATE_POLL_MS = 3000;
function showUpdating(updating) {
  const note = $('updating');
  note.hidden = !updating;
  if (!updating) return;
  note.textContent = i18n.t('updating.vectors', { done: updating.done, total: updating.total });
  setTimeout(async () => {
    let health = null;
    try { health = await api.call('health'); } catch { /* try again on the next tick */ }
    showUpdating(health ? health.updating : updating);
  }, UPDATE_POLL_MS);
}

// Classroom mode: who this browser is. The desktop window is always the teacher.
async function whoAmI() {
  if (api.inApp) return { role: 'teacher' };
  try { return await api.call('session'); } catch { return { role: 'teacher' }; }
}

// Before joining: the join form alone. `ended`: the class this device was in has ended.
function showJoin(ended) {
  document.body.dataset.role = 'none';
  document.querySelectorAll('.screen').forEach((s) => { s.hidden = s.id !== 'screen-join'; });
  $('join-note').textContent = i18n.t(ended ? 'join.ended' : 'join.note');
  $('join-code').value = '';
  $('join-code').focus();
}

// A student's device: the Ask screen alone, their own conversations, no teacher screens.
async function startStudent(me) {
  await i18n.setLanguage(i18n.savedLanguage() || i18n.browserLanguage() || 'en');
  $('ui-language').value = i18n.language();
  $('ui-language').addEventListener('change', async (e) => {
    await i18n.setLanguage(e.target.value);
    ask.relabel();
    if (document.body.dataset.role === 'none') showJoin(false);
  });
  $('join-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    $('join-error').hidden = true;
    try {
      await api.call('join', { code: $('join-code').value.trim(), name: $('join-name').value });
      window.location.reload();
    } catch (err) {
      $('join-error').textContent = i18n.errorText(err);
      $('join-error').hidden = false;
    }
  });
  // The teacher on another device: the PIN set on the laptop's Settings screen.
  $('teacher-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    $('teacher-error').hidden = true;
    try {
      await api.call('teacher_login', { pin: $('teacher-pin').value.trim() });
      window.location.reload();
    } catch (err) {
      $('teacher-error').textContent = i18n.errorText(err);
      $('teacher-error').hidden = false;
    }
  });
  window.addEventListener('vidya:class-ended', () => showJoin(true));
  if (me.role === 'student') {
    document.body.dataset.role = 'student';
    ask.init();
    show('ask');
    $('question').focus();
    // The teacher may end the class at any time: the page says so within a few seconds.
    const poll = setInterval(async () => {
      let now = null;
      try { now = await api.call('session'); } catch { return; }
      if (now.role === 'none') { clearInterval(poll); showJoin(true); }
    }, 3000);
  } else {
    showJoin(false);
  }
  document.body.dataset.ready = 'true';
}

async function start() {
  fillLanguageMenus(document);
  const me = await whoAmI();
  if (me.role !== 'teacher') {
    await startStudent(me);
    return;
  }
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
  dashboard.init();
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
  showUpdating(health ? health.updating : null);
  document.body.dataset.ready = 'true';
  // A class in session (`vidya serve --classroom`, or Settings → Classroom) opens on the
  // Dashboard, where its address and code are: the setup wizard stays in Settings.
  if (me.classroom) show('dashboard');
  else if (s && !s.setup_done) await setup.open();
  else $('question').focus();
  api.ready();
}

start();
