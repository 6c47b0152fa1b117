// The Library screen (teachers): drop or pick textbook files, watch each book's progress,
// cancel, read errors in words, and manage the stored books.

import * as api from './transport.js';
import { t } from './i18n.js';
import { el, text } from './render.js';
import { toast } from './ask.js';
import { languageName } from './languages.js';

const $ = (id) => document.getElementById(id);
const queue = []; // {file?, bookId?, title, li, bar, status, state: queued|running|finished|failed|cancelled}
let running = false;
let onBooksChanged = () => {};

/** The error in the interface language; the engine's full message (with what to do, in
 * English) goes under "Details". */
function showError(item, e) {
  const key = `err.${e.kind}`;
  const words = t(key);
  text(item.status, words === key ? t('err.generic') : words);
  item.status.classList.remove('muted');
  if (e.message) {
    const more = document.createElement('details');
    more.className = 'status small';
    more.append(el('summary', null, t('library.details')), el('div', null, e.message));
    item.li.append(more);
  }
}

function addItem(title, cancel) {
  const li = el('li');
  const name = el('span', 'name', title);
  const btn = el('button', 'cancel', t('library.cancel'));
  btn.type = 'button';
  const bar = document.createElement('progress');
  bar.max = 100;
  bar.value = 0;
  const status = el('div', 'status muted', t('library.queued'));
  li.append(name, btn, bar, status);
  $('ingest-queue').prepend(li);
  const item = { title, li, bar, status, btn, state: 'queued' };
  btn.addEventListener('click', () => cancel(item));
  return item;
}

function cancelItem(item) {
  if (item.state === 'queued') {
    item.state = 'cancelled';
    item.li.classList.add('failed');
    text(item.status, t('library.cancelled'));
    item.btn.remove();
  } else if (item.state === 'running') {
    api.call('cancel_ingest').catch((e) => toast(e.message));
  }
}

function onEvent(item, event, data) {
  if (event === 'progress') {
    item.bar.value = data.percent;
    let s = t(`stage.${data.stage}`);
    if (data.total) s += ` ${data.done}/${data.total}`;
    if (data.eta_s != null) s += ` · ${t('library.eta', { s: Math.ceil(data.eta_s) })}`;
    text(item.status, s);
  } else if (event === 'book') {
    item.bar.value = 100;
    item.state = 'finished';
    item.li.classList.add('finished');
    text(item.status, data.already_present ? t('library.already') : t('library.done', { pages: data.pages, chunks: data.chunks }));
    for (const w of data.warnings || []) item.li.append(el('div', 'status warnings', w));
  } else if (event === 'error') {
    item.state = 'failed';
    item.li.classList.add('failed');
    if (data.kind === 'cancelled') text(item.status, t('library.cancelled'));
    else showError(item, data);
  } else if (event === 'note') {
    item.li.append(el('div', 'status muted', data.message));
  }
}

async function pump() {
  if (running) return;
  running = true;
  try {
    for (;;) {
      const item = queue.find((i) => i.state === 'queued');
      if (!item) break;
      item.state = 'running';
      text(item.status, t('stage.reading'));
      try {
        const handler = (event, data) => onEvent(item, event, data);
        if (item.file) await api.ingestFile(item.file, handler);
        else await api.reindexBook(item.bookId, handler);
        if (item.state === 'running') item.state = 'finished';
      } catch (e) {
        onEvent(item, 'error', { kind: e.kind, message: e.message });
      }
      item.btn.remove();
      await refreshBooks();
    }
  } finally {
    running = false;
  }
}

/** Largest book file (bytes): the engine's PDF limit. */
const MAX_FILE_BYTES = 512 * 1024 * 1024;

function addFiles(files) {
  for (const file of files) {
    const item = addItem(file.name, cancelItem);
    if (file.size > MAX_FILE_BYTES) {
      item.state = 'failed';
      item.li.classList.add('failed');
      item.btn.remove();
      showError(item, { kind: 'too_large', message: `${file.name}: ${Math.round(file.size / 1048576)} MB; the largest book file Vidya reads is 512 MB. Split the book into chapter PDFs.` });
      continue;
    }
    item.file = file;
    queue.push(item);
  }
  pump();
}

/** Reloads the book table (and tells the Ask screen). */
export async function refreshBooks() {
  let books = [];
  try { books = await api.call('books'); } catch (e) { toast(e.message); return; }
  const body = $('book-rows');
  body.replaceChildren();
  for (const b of books) {
    const tr = document.createElement('tr');
    const title = el('td', null);
    title.append(el('div', 'title', b.title));
    for (const w of b.warnings || []) title.append(el('div', 'warnings', w));
    const actions = el('td', 'actions');
    const re = el('button', null, t('library.reindex'));
    re.type = 'button';
    re.addEventListener('click', () => {
      const item = addItem(b.title, cancelItem);
      item.bookId = b.id;
      queue.push(item);
      pump();
    });
    const del = el('button', null, t('library.delete'));
    del.type = 'button';
    del.addEventListener('click', async () => {
      if (!window.confirm(t('library.delete_confirm', { title: b.title }))) return;
      try { await api.call('delete_book', { id: b.id }); } catch (e) { toast(e.message); }
      refreshBooks();
    });
    actions.append(re, ' ', del);
    tr.append(title, el('td', null, languageName(b.language)), el('td', null, b.ocr_page_count ? `${b.page_count} (${t('library.ocrPages', { n: b.ocr_page_count })})` : b.page_count), el('td', null, b.chunk_count), el('td', null, (b.added_at || '').slice(0, 10)), actions);
    body.append(tr);
  }
  $('no-books').hidden = books.length > 0;
  onBooksChanged(books);
}

export function init(booksChanged) {
  onBooksChanged = booksChanged;
  const zone = $('drop-zone');
  const input = $('file-input');
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    if (e.dataTransfer && e.dataTransfer.files.length) addFiles([...e.dataTransfer.files]);
  });
  zone.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); input.click(); } });
  input.addEventListener('change', () => { addFiles([...input.files]); input.value = ''; });
  // A file dropped outside the zone must not navigate away from the app.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
}
