// The first-run setup wizard: six steps (Vidya's files, library folder, Ollama, answer model,
// test question, ready). It opens at start until the teacher finishes or skips it, and again
// from Settings. Every check and action is the engine's (`vidya setup` runs the same ones);
// this file only shows them.

import * as api from './transport.js';
import { t, language } from './i18n.js';
import { text, renderAnswer, el as element, chapterBeside } from './render.js';

const $ = (id) => document.getElementById(id);
const STEPS = ['files', 'library', 'ollama', 'model', 'test', 'done'];
let report = null;
let step = 0;
let onClose = () => {};
let busy = false;

const gb = (bytes) => (bytes / 1e9).toFixed(1);
// A file size in words: GB from 0.1 GB, MB below.
const size = (bytes) => (bytes >= 1e8 ? `${gb(bytes)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`);

// render.js's el (tag, class, text) with attributes, listeners (`onclick`, …) and children.
function el(tag, attrs = {}, children = []) {
  const { class: className, text: content, ...rest } = attrs;
  const e = element(tag, className, content);
  for (const [k, v] of Object.entries(rest)) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function status(ok, optional = false) {
  const key = ok ? 'setup.status.ok' : optional ? 'setup.status.optional' : 'setup.status.problem';
  return el('span', { class: `badge ${ok ? 'ok' : optional ? 'optional' : 'problem'}`, text: t(key) });
}

function stepOk(name) {
  if (!report) return false;
  switch (name) {
    case 'files': return report.resources.files.every((f) => f.status === 'ok');
    case 'library': return report.machine.problems.length === 0;
    case 'ollama': return report.ollama.state === 'running';
    case 'model': return report.model_installed;
    default: return true;
  }
}

async function refresh() {
  const panel = $('setup-panel');
  panel.setAttribute('aria-busy', 'true');
  try {
    report = await api.call('setup_report');
  } catch (e) {
    panel.replaceChildren(el('p', { class: 'error', text: e.message }));
    return;
  } finally {
    panel.removeAttribute('aria-busy');
  }
  render();
}

function render() {
  const list = $('setup-steps');
  list.replaceChildren(...STEPS.map((name, i) => {
    const li = el('li', { class: i === step ? 'current' : '' }, [
      el('span', { text: t(`setup.step.${name}`) }),
    ]);
    if (i === step) li.setAttribute('aria-current', 'step');
    if (report && i < 4) li.append(' ', status(stepOk(name), name === 'ollama' || name === 'model'));
    return li;
  }));
  text($('setup-step-of'), t('setup.step_of', { n: step + 1, total: STEPS.length }));
  text($('setup-step-title'), t(`setup.step.${STEPS[step]}`));
  const panel = $('setup-panel');
  panel.dataset.step = STEPS[step];
  panel.replaceChildren(...(report ? PANELS[STEPS[step]]().filter(Boolean) : []));
  nav();
}

function nav() {
  $('setup-back').disabled = step === 0 || busy;
  $('setup-next').hidden = step === STEPS.length - 1;
  $('setup-next').disabled = busy;
  $('setup-finish').hidden = step !== STEPS.length - 1;
}

function problemList(messages) {
  return el('ul', { class: 'problems' }, messages.map((m) => el('li', { text: m })));
}

function progressBox() {
  return el('div', { id: 'setup-progress', class: 'setup-progress', 'aria-live': 'polite', hidden: '' }, [
    el('span', { id: 'setup-progress-label' }),
    el('progress', { id: 'setup-progress-bar', max: '1', value: '0' }),
  ]);
}

function showProgress(data) {
  const box = $('setup-progress');
  if (!box) return;
  // The outcome line says "Done: <model> is ready."; the bar has nothing left to show.
  if (data.phase === 'done') { box.hidden = true; return; }
  if (box.hidden) { box.hidden = false; box.scrollIntoView({ block: 'nearest' }); }
  const pct = data.total ? ` ${Math.floor((100 * data.completed) / data.total)} %` : '';
  const label = data.phase === 'reading' ? t('setup.test.reading') : t(`setup.progress.${data.phase}`);
  text($('setup-progress-label'), `${label}${pct}`);
  const bar = $('setup-progress-bar');
  if (data.total) { bar.max = data.total; bar.value = data.completed; } else bar.removeAttribute('value');
}

function outcome(kind, message) {
  const box = $('setup-outcome');
  if (!box) return;
  box.className = kind;
  text(box, message);
  box.hidden = false;
  box.scrollIntoView({ block: 'nearest' });
}

async function run(action) {
  if (busy) return;
  busy = true;
  nav();
  try { await action(); } finally { busy = false; nav(); }
}

// A model action (import or pull): progress, then refresh the report.
function modelAction(start) {
  const previous = $('setup-outcome');
  if (previous) previous.hidden = true;
  return run(async () => {
    let failed = null;
    let done = null;
    try {
      await start((event, data) => {
        if (event === 'model') showProgress(data);
        if (event === 'done') done = data.model;
        if (event === 'error') failed = data.message;
      });
    } catch (e) { failed = e.message; }
    await refresh();
    if (failed) outcome('error', failed);
    else if (done) outcome('notice ok', t('setup.progress.done', { model: done }));
  });
}

const PANELS = {
  files() {
    const ok = stepOk('files');
    const bad = report.resources.files.filter((f) => f.status !== 'ok').map((f) => f.message);
    return [
      el('p', { text: t('setup.intro') }),
      el('p', { class: ok ? 'notice ok' : 'error', text: ok ? t('setup.files.ok', { count: report.resources.files.length }) : t('setup.files.bad') }),
      ok ? null : problemList(bad),
    ];
  },
  library() {
    const m = report.machine;
    return [
      el('p', { text: t('setup.library.ok', { path: m.library, free: m.free_disk_bytes == null ? '?' : gb(m.free_disk_bytes) }) }),
      el('p', { text: t('setup.memory', { gb: gb(m.total_memory_bytes) }) }),
      m.problems.length ? el('p', { class: 'error', text: t('setup.library.bad') }) : null,
      m.problems.length ? problemList(m.problems) : null,
      ...m.warnings.map((w) => el('p', { class: 'notice', text: w })),
    ];
  },
  ollama() {
    const o = report.ollama;
    const out = [];
    if (o.state === 'running') {
      out.push(el('p', { class: 'notice ok', text: t('setup.ollama.running', { version: o.version }) }));
    } else if (o.state === 'stopped') {
      out.push(el('p', { class: 'notice', text: t('setup.ollama.stopped') }));
      out.push(el('button', {
        id: 'setup-start-ollama', class: 'primary big', text: t('setup.ollama.start'),
        onclick: () => run(async () => {
          outcome('notice', t('setup.ollama.starting'));
          try { await api.call('setup_start_ollama'); await refresh(); } catch (e) { await refresh(); outcome('error', e.message); }
        }),
      }));
    } else {
      out.push(el('p', { class: 'notice', text: t('setup.ollama.absent') }));
      out.push(el('p', { text: o.installer ? t('setup.ollama.installer', { path: o.installer }) : t('setup.ollama.no_installer', { file: report.ollama_installer_name }) }));
    }
    out.push(el('p', { id: 'setup-outcome', hidden: '' }));
    out.push(el('button', { id: 'setup-recheck', text: t('setup.check_again'), onclick: () => run(refresh) }));
    return out;
  },
  model() {
    const o = report.ollama;
    const advice = report.machine.advice;
    const out = [
      el('p', { text: advice.model ? t('setup.model.recommended', { model: advice.model, size: gb(advice.size_bytes) }) : t('setup.model.none_fits') }),
    ];
    if (o.state !== 'running') {
      out.push(el('p', { class: 'notice', text: t('setup.model.needs_ollama') }));
      return out;
    }
    out.push(el('p', {
      class: report.model_installed ? 'notice ok' : 'notice',
      text: report.model_installed ? t('setup.model.current', { model: report.model }) : t('setup.model.current_missing', { model: report.model }),
    }));
    out.push(el('h3', { text: o.models.length ? t('setup.model.installed') : t('setup.model.none_installed') }));
    if (o.models.length) {
      out.push(el('ul', { class: 'choices', id: 'setup-installed' }, o.models.map((m) => el('li', {}, [
        el('span', { text: m }),
        el('button', {
          text: t('setup.model.use'),
          onclick: () => run(async () => {
            try {
              const s = await api.call('get_settings');
              await api.call('save_settings', { settings: { ...s, model: m } });
            } catch (e) { outcome('error', e.message); }
            await refresh();
          }),
        }),
      ]))));
    }
    // Import a .gguf file (offline).
    out.push(el('h3', { text: t('setup.model.import_title') }));
    if (report.gguf_files.length) {
      out.push(el('p', { text: t('setup.model.found_files') }));
      out.push(el('ul', { class: 'choices', id: 'setup-gguf' }, report.gguf_files.map((f) => el('li', {}, [
        el('span', { text: `${f.path} (${size(f.size_bytes)})` }),
        el('button', {
          class: 'primary', text: t('setup.model.import'),
          onclick: () => modelAction((on) => api.setupImport(f.path, f.suggested_name, on)),
        }),
      ]))));
    } else {
      out.push(el('p', { class: 'muted', text: t('setup.model.no_files') }));
    }
    const pathInput = el('input', { id: 'setup-gguf-path', type: 'text', spellcheck: 'false' });
    const nameInput = el('input', { id: 'setup-gguf-name', type: 'text', spellcheck: 'false' });
    out.push(el('form', {
      class: 'setup-form', id: 'setup-import-form',
      onsubmit: (e) => {
        e.preventDefault();
        const path = pathInput.value.trim();
        if (path) modelAction((on) => api.setupImport(path, nameInput.value.trim() || null, on));
      },
    }, [
      el('label', {}, [el('span', { text: t('setup.model.path_label') }), pathInput]),
      el('label', {}, [el('span', { text: t('setup.model.name_label') }), nameInput]),
      el('button', { type: 'submit', text: t('setup.model.import') }),
    ]));
    // Pull by name (online).
    out.push(el('h3', { text: t('setup.model.pull_title') }));
    const pullInput = el('input', { id: 'setup-pull-name', type: 'text', spellcheck: 'false', value: advice.model || 'llama3.2:1b' });
    out.push(el('form', {
      class: 'setup-form', id: 'setup-pull-form',
      onsubmit: (e) => {
        e.preventDefault();
        const name = pullInput.value.trim();
        if (name) modelAction((on) => api.setupPull(name, on));
      },
    }, [pullInput, el('button', { type: 'submit', text: t('setup.model.pull') })]));
    out.push(progressBox());
    out.push(el('p', { id: 'setup-outcome', hidden: '' }));
    return out;
  },
  test() {
    const answer = el('div', { id: 'setup-answer', class: 'answer', 'aria-live': 'polite' });
    const sources = el('ol', { id: 'setup-sources', class: 'setup-sources' });
    const button = el('button', {
      id: 'setup-run-test', class: 'primary big', text: t('setup.test.run'),
      onclick: () => run(async () => {
        let streamed = '';
        let final = null;
        let failed = null;
        text(answer, '');
        sources.replaceChildren();
        $('setup-outcome').hidden = true;
        try {
          await api.setupSample(language(), (event, data) => {
            if (event === 'reading') showProgress({ phase: 'reading', completed: data.percent, total: 100 });
            if (event === 'token') { streamed += data.text; text(answer, streamed); }
            if (event === 'answer') final = data;
            if (event === 'error') failed = data.message;
          });
        } catch (e) { failed = e.message; }
        $('setup-progress').hidden = true;
        const box = $('setup-answer');
        if (final) {
          const cites = final.citations || [];
          renderAnswer(box, final.answer, cites.length, () => {});
          $('setup-sources').replaceChildren(...cites.map((c) => el('li', { text: `${c.book}${chapterBeside(c.book, c.chapter) ? ` · ${c.chapter}` : ''} · ${t('sources.page', { page: c.page_label })}` })));
          const modelText = ['answered', 'incomplete'].includes(final.status);
          outcome(modelText ? 'notice ok' : 'notice', modelText ? t('setup.test.ok') : t('setup.test.extractive'));
        } else if (failed) {
          outcome('error', failed);
        }
      }),
    });
    const progress = progressBox();
    return [
      el('p', { text: t('setup.test.intro') }),
      el('p', { class: 'question', text: 'What happens in the light-dependent reactions of photosynthesis?' }),
      button, progress, answer, sources,
      el('p', { id: 'setup-outcome', hidden: '' }),
    ];
  },
  done() {
    return [el('p', { class: 'notice ok', text: t('setup.done.text') })];
  },
};

async function close(done) {
  try { await api.call('setup_done', { done }); } catch { /* shown again next start */ }
  $('screen-setup').hidden = true;
  onClose();
}

/** Opens the wizard at its first step. */
export async function open() {
  document.querySelectorAll('.screen').forEach((s) => { s.hidden = s.id !== 'screen-setup'; });
  document.querySelectorAll('.tabs button').forEach((b) => b.setAttribute('aria-selected', 'false'));
  step = 0;
  report = null;
  render();
  $('setup-step-title').focus();
  await refresh();
}

/** Re-labels the open wizard after an interface-language change. */
export function relabel() {
  if (!$('screen-setup').hidden) render();
}

/** Wires the buttons; `closed` runs when the wizard is finished or skipped. */
export function init(closed) {
  onClose = closed;
  $('setup-back').addEventListener('click', () => { if (step > 0) { step -= 1; render(); } });
  $('setup-next').addEventListener('click', () => { if (step < STEPS.length - 1) { step += 1; render(); } });
  $('setup-skip').addEventListener('click', () => close(true));
  $('setup-finish').addEventListener('click', () => close(true));
  $('open-setup').addEventListener('click', () => open());
}
