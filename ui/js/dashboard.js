// The Dashboard: questions asked, median time to answer, tokens sent vs. a full-page
// baseline, cache hit rate, per-stage latency; small SVG charts drawn with DOM calls. Also
// the answer machines' state and the class report (what the students asked, by book, chapter
// and page; what the books could not answer; per student and device; as CSV). Students'
// words are shown as text only, never markup.

import * as api from './transport.js';
import { t } from './i18n.js';
import { text, el, chapterBeside } from './render.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, content) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (content != null) e.textContent = String(content);
  return e;
}

/** Horizontal bars: rows of [label, value]. */
function barChart(rows, unit) {
  const w = 460; const rowH = 22; const left = 190;
  const h = Math.max(rows.length, 1) * rowH + 6;
  const max = Math.max(1, ...rows.map((r) => r[1]));
  const s = svg('svg', { viewBox: `0 0 ${w} ${h}`, role: 'img' });
  rows.forEach(([label, v], i) => {
    const y = i * rowH + 3;
    const bw = Math.max(1, (v / max) * (w - left - 70));
    s.append(svg('text', { x: 0, y: y + 14 }, label));
    s.append(svg('rect', { x: left, y, width: bw, height: rowH - 6, fill: '#1f6f50', rx: 3 }));
    s.append(svg('text', { x: left + bw + 4, y: y + 14 }, `${Math.round(v)}${unit}`));
  });
  return s;
}

/** Vertical bars of `values`, with an optional lighter bar behind each (`behind`). */
function columns(values, behind, format) {
  const w = 420; const h = 140; const n = Math.max(values.length, 1);
  const max = Math.max(1, ...values, ...(behind || []));
  const gap = 3; const bw = Math.max(2, (w - gap * n) / n);
  const s = svg('svg', { viewBox: `0 0 ${w} ${h + 16}`, role: 'img' });
  values.forEach((v, i) => {
    const x = i * (bw + gap);
    if (behind) {
      const bh = (behind[i] / max) * h;
      s.append(svg('rect', { x, y: h - bh, width: bw, height: bh, fill: '#cfe6db' }));
    }
    const vh = (v / max) * h;
    s.append(svg('rect', { x, y: h - vh, width: bw, height: Math.max(vh, 1), fill: '#1f6f50' }));
  });
  s.append(svg('text', { x: 0, y: h + 13 }, t('dash.max', { value: format(max) })));
  return s;
}

/** The classroom panel (classroom mode on: Settings → Classroom in the window, or
 * `vidya serve --classroom`). */
async function refreshClassroom() {
  let c = null;
  try { c = await api.call('classroom'); } catch { c = null; }
  $('classroom').hidden = !(c && c.on);
  if (!c || !c.on) return;
  text($('class-address'), c.addresses.join('  ·  '));
  text($('class-code'), c.code || '–');
  // Between classes there is no code to type: say so instead of showing the address.
  $('class-join-info').hidden = !c.code;
  $('class-between').hidden = Boolean(c.code);
  $('class-qr').hidden = !c.qr_svg || !c.code;
  // The server's own SVG, shown as an image (an image's SVG never runs script).
  if (c.qr_svg) $('class-qr').src = `data:image/svg+xml;base64,${btoa(c.qr_svg)}`;
  $('class-end').hidden = !c.code;
  $('class-start').hidden = Boolean(c.code);
  text($('class-rate'), t('class.per_minute', { n: c.questions_per_minute ?? 0 }));
  // Device names are what students typed: text only, never markup.
  $('class-students').replaceChildren(...(c.students.length ? c.students.map((st) => {
    const li = document.createElement('li');
    li.textContent = t('class.device', { name: st.name, questions: st.questions });
    return li;
  }) : [Object.assign(document.createElement('li'), { className: 'muted', textContent: t('class.none') })]));
}

/** The answer machines: address, up or down (with the last error), answering now of the
 * answers it writes at once, answered, failures. */
async function refreshMachines() {
  let list;
  try { list = await api.call('answer_machines'); } catch { $('machines').hidden = true; return; }
  $('machines').hidden = false;
  $('machine-rows').replaceChildren(...list.map((m) => {
    const tr = document.createElement('tr');
    tr.className = m.up ? 'up' : 'down';
    const state = el('td', null);
    state.append(el('span', `badge ${m.up ? 'ok' : 'problem'}`, t(m.up ? 'machines.up' : 'machines.down')));
    if (m.last_error) state.append(el('div', 'muted small', m.up ? t('machines.last_error', { error: m.last_error }) : m.last_error));
    tr.append(
      el('td', 'address', m.host || t('machines.this_laptop')),
      state,
      el('td', null, `${m.busy} / ${m.slots}`),
      el('td', null, m.answered),
      el('td', null, m.failures),
    );
    return tr;
  }));
}

/** The `since` of the report's menu: `class`, `all`, or today's local midnight (Unix s). */
function reportSince() {
  const v = $('report-since').value;
  if (v !== 'today') return v;
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  return String(Math.floor(midnight.getTime() / 1000));
}

/** A report time (`YYYY-MM-DD HH:MM:SS`, this computer's clock): the hour alone today. */
function when(time) {
  const d = new Date();
  const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return time.startsWith(today) ? time.slice(11, 16) : time.slice(0, 16);
}

/** Book › chapter (the chapter left out when it is the book's own title, as for a book of
 * one chapter file). */
function bookAndChapter(book, chapter) {
  const shown = chapterBeside(book, chapter);
  return shown ? `${book} › ${shown}` : book;
}

/** One question of the report: “words” — student · time, and its page or why the books did
 * not answer it. */
function questionItem(q, { student = true, status = false, page = true } = {}) {
  const li = el('li', 'report-question');
  li.append(el('q', null, q.question));
  const meta = [];
  if (student) meta.push(q.student);
  meta.push(when(q.time));
  if (status) {
    const label = t(`status.${q.status}`);
    meta.push(label === `status.${q.status}` ? q.status : label);
  }
  if (!status && page && q.book) meta.push(t('report.page', { book: q.book, page: q.page_label || '–' }));
  li.append(el('span', 'muted small', ` — ${meta.join(' · ')}`));
  return li;
}

/** `<details>` that stay open while the report is drawn again (keyed by `data-key`). */
function openKeys(root) {
  return new Set([...root.querySelectorAll('details[open]')].map((d) => d.dataset.key));
}

function details(key, open, summary, body) {
  const d = document.createElement('details');
  d.dataset.key = key;
  d.open = open.has(key);
  const s = document.createElement('summary');
  s.append(...summary);
  d.append(s, body);
  return d;
}

function noneItem(key) {
  return el('li', 'muted', t(key));
}

/** The class report: by page, not answered, per student and device. */
async function refreshReport() {
  const since = reportSince();
  $('report-csv-link').href = `/api/class-report.csv?since=${encodeURIComponent(since)}`;
  $('report-csv-link').download = `class-report-${new Date().toISOString().slice(0, 10)}.csv`;
  let r;
  try { r = await api.call('class_report', { since }); } catch (err) {
    text($('report-summary'), err.message);
    return;
  }
  text($('report-summary'), r.total
    ? t('report.summary', { total: r.total, unanswered: r.unanswered.length, devices: r.devices.length })
    : t('report.empty'));
  const open = openKeys($('report'));
  const groups = [];
  for (const b of r.groups) {
    for (const c of b.chapters) {
      for (const p of c.pages) {
        const key = `p:${b.book_id}:${b.book}:${c.chapter}:${p.page}`;
        const where = [el('span', 'where', `${bookAndChapter(b.book, c.chapter)} › ${t('sources.page', { page: p.page_label || '–' })}`), el('span', 'count', p.count)];
        const list = el('ul', 'report-questions');
        list.append(...p.questions.map((q) => questionItem(q, { page: false })));
        const li = el('li');
        li.append(details(key, open, where, list));
        groups.push(li);
      }
    }
  }
  $('report-groups').replaceChildren(...(groups.length ? groups : [noneItem('report.none')]));
  $('report-unanswered').replaceChildren(...(r.unanswered.length
    ? r.unanswered.map((q) => questionItem(q, { status: true }))
    : [noneItem('report.none_unanswered')]));
  $('report-devices').replaceChildren(...(r.devices.length ? r.devices.map((d) => {
    const list = el('ul', 'report-questions');
    list.append(...d.questions.map((q) => questionItem(q, { student: false, status: q.status === 'gated' || q.status === 'refused' || !q.book })));
    const summary = [
      el('span', 'where', `${d.student} · ${d.device}`),
      el('span', 'count', d.count),
      el('span', 'muted small', d.unanswered ? ` ${t('report.device_unanswered', { n: d.unanswered })}` : ''),
    ];
    return details(`d:${d.student}:${d.device}`, open, summary, list);
  }) : [el('p', 'muted', t('report.none'))]));
}

/** Saves the CSV (the window: beside the library, the path shown). */
async function saveCsv() {
  const status = $('report-csv-status');
  try {
    const path = await api.call('class_report_csv', { since: reportSince() });
    status.className = 'notice small';
    text(status, t('report.saved', { path }));
  } catch (err) {
    status.className = 'error small';
    text(status, err.message);
  }
}

/** Wires the classroom buttons and the report; while the Dashboard is open, the classroom
 * panel, the answer machines and the class report are read again every 5 s (who joined,
 * questions per minute, machines busy or down, new questions). */
export function init() {
  setInterval(() => {
    if ($('screen-dashboard').hidden) return;
    refreshClassroom();
    refreshMachines();
    refreshReport();
  }, 5000);
  $('class-end').addEventListener('click', async () => { await api.call('classroom_end'); refreshClassroom(); });
  $('class-start').addEventListener('click', async () => { await api.call('classroom_start'); refreshClassroom(); });
  $('report-since').addEventListener('change', () => { text($('report-csv-status'), ''); refreshReport(); });
  // In the window the CSV is saved by Vidya beside the library; in a browser it downloads.
  $('report-csv-link').hidden = api.inApp;
  $('report-csv-save').hidden = !api.inApp;
  $('report-csv-save').addEventListener('click', saveCsv);
}

export async function refresh() {
  refreshClassroom();
  refreshMachines();
  refreshReport();
  let s;
  try { s = await api.call('stats'); } catch { return; }
  text($('d-questions'), s.questions);
  text($('d-median'), s.median_answer_ms == null ? '–' : `${(s.median_answer_ms / 1000).toFixed(1)} s`);
  text($('d-saved'), s.tokens_saved_rate == null ? '–' : `${Math.round(s.tokens_saved_rate * 100)} %`);
  text($('d-tokens'), s.tokens_full_pages ? t('dash.tokens_detail', { sent: s.tokens_sent, full: s.tokens_full_pages }) : '');
  text($('d-cache'), s.cache_hit_rate == null ? '–' : `${Math.round(s.cache_hit_rate * 100)} %`);
  text($('d-books'), `${s.books} · ${s.pages} · ${s.chunks}`);
  const stages = Object.entries(s.stage_median_ms || {}).map(([k, v]) => {
    const label = t(`timing.${k}`);
    return [label === `timing.${k}` ? k : label, v];
  });
  const none = () => { const p = document.createElement('p'); p.className = 'muted'; p.textContent = t('dash.none'); return p; };
  $('chart-stages').replaceChildren(stages.length ? barChart(stages, ' ms') : none());
  const recent = s.recent || [];
  $('chart-recent').replaceChildren(recent.length ? columns(recent.map((r) => r.total_ms / 1000), null, (v) => `${v.toFixed(1)} s`) : none());
  $('chart-tokens').replaceChildren(recent.length ? columns(recent.map((r) => r.tokens_sent), recent.map((r) => r.tokens_full_pages), (v) => `${Math.round(v)}`) : none());
}
