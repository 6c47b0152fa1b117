// The Dashboard: questions asked, median time to answer, tokens sent vs. a full-page
// baseline, cache hit rate, per-stage latency; small SVG charts drawn with DOM calls.

import * as api from './transport.js';
import { t } from './i18n.js';
import { text } from './render.js';

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

/** Wires the classroom buttons; while the Dashboard is open, the classroom panel is read
 * again every 5 s (who joined, questions per minute). */
export function init() {
  setInterval(() => { if (!$('screen-dashboard').hidden) refreshClassroom(); }, 5000);
  $('class-end').addEventListener('click', async () => { await api.call('classroom_end'); refreshClassroom(); });
  $('class-start').addEventListener('click', async () => { await api.call('classroom_start'); refreshClassroom(); });
}

export async function refresh() {
  refreshClassroom();
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
