// The Ask screen: chat with streaming answers, mode / language / book choice, conversations,
// and the citation side panel with the cited page's image.

import * as api from './transport.js';
import { t, errorText } from './i18n.js';
import { renderAnswer, el, text } from './render.js';

const $ = (id) => document.getElementById(id);
let conversation = null; // id of the conversation being continued
let epoch = 0; // bumped when the chat is cleared or another conversation opens
let busy = false;
let pageUrl = null;
let shown = []; // citations in the side panel

function statusLabel(a) {
  const key = `status.${a.status}`;
  const label = t(key);
  return label === key ? a.status : label;
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Fills the side panel with `citations` (the current answer's sources). */
function showSources(citations) {
  shown = citations || [];
  const list = $('source-list');
  list.replaceChildren();
  $('sources-empty').hidden = shown.length > 0;
  $('page-view').hidden = true;
  shown.forEach((c) => {
    const li = el('li');
    li.tabIndex = 0;
    li.dataset.n = String(c.n);
    const where = el('div', 'where', `[${c.n}] ${c.book} · ${t('sources.page', { page: c.page_label })}`);
    li.append(where, el('div', 'chapter', c.chapter), el('q', null, c.text));
    li.addEventListener('click', () => showPage(c.n));
    li.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); showPage(c.n); } });
    list.append(li);
  });
}

/** Shows citation n: highlights it in the list and draws its page. */
export async function showPage(n) {
  const c = shown.find((x) => x.n === n);
  if (!c) return;
  document.querySelectorAll('#source-list li').forEach((li) => li.classList.toggle('active', li.dataset.n === String(n)));
  document.querySelectorAll('button.cite').forEach((b) => b.classList.toggle('active', b.dataset.n === String(n) && b.closest('.msg') === document.querySelector('.msg.answer:last-of-type')));
  const fig = $('page-view');
  fig.hidden = false;
  text($('page-caption'), `[${c.n}] ${c.book} · ${t('sources.page', { page: c.page_label })}`);
  const img = $('page-image');
  const err = $('page-error');
  err.hidden = true;
  img.hidden = true;
  img.alt = `${c.book}, ${t('sources.page', { page: c.page_label })}`;
  text(err, t('sources.loading'));
  err.hidden = false;
  err.className = 'muted';
  try {
    const url = await api.pageImage({ book_id: c.book_id, page: c.page, highlight: [c.text], width: 820 });
    if (pageUrl) URL.revokeObjectURL(pageUrl);
    pageUrl = url;
    img.onload = () => fig.scrollIntoView({ block: 'start' });
    img.src = url;
    img.hidden = false;
    err.hidden = true;
  } catch (e) {
    err.className = 'notice';
    text(err, `${t('sources.no_image')} ${e.message}`);
  }
}

function answerNote(a) {
  if (a.llm_error) {
    const box = el('div', 'note notice');
    box.dataset.kind = a.llm_error.kind;
    box.append(el('strong', null, a.llm_error.kind === 'not_running' ? t('llm.not_running') : t('llm.other')));
    box.append(el('div', 'small', a.llm_error.message.replace(/`/g, '')));
    return box;
  }
  if (a.note) return el('div', 'note notice', a.note);
  return null;
}

/** Adds a finished answer to the chat. */
function showAnswer(bubble, a) {
  const body = el('div', 'body');
  renderAnswer(body, a.answer, (a.citations || []).length, (n) => showPage(n));
  const total = a.timings_ms && a.timings_ms.total;
  const meta = el('div', 'meta', total ? `${statusLabel(a)} · ${seconds(total)}` : statusLabel(a));
  // Each stage's time (ms), for the curious and for teachers checking a slow laptop.
  meta.title = Object.entries(a.timings_ms || {}).map(([k, v]) => `${k} ${Math.round(v)} ms`).join(' · ');
  bubble.replaceChildren(body, meta);
  const note = answerNote(a);
  if (note) bubble.append(note);
  bubble.dataset.status = a.status;
}

function addQuestion(q) {
  const m = el('div', 'msg question', q);
  $('messages').append(m);
  return m;
}

function addAnswerBubble() {
  const b = el('div', 'msg answer');
  b.append(el('div', 'streaming muted', t('ask.thinking')));
  $('messages').append(b);
  return b;
}

function scrollDown() {
  const m = $('messages');
  m.scrollTop = m.scrollHeight;
}

async function submit(e) {
  e.preventDefault();
  if (busy) return;
  const box = $('question');
  const q = box.value.trim();
  // Vidya refuses a first question with no letter or digit in any script (only punctuation
  // or emoji); inside a conversation "??" asks about the last answer again.
  if (!q || (conversation === null && !/[\p{L}\p{N}]/u.test(q))) {
    toast(t('ask.empty_question'));
    return;
  }
  busy = true;
  $('send').disabled = true;
  box.value = '';
  addQuestion(q);
  const bubble = addAnswerBubble();
  scrollDown();
  const stream = bubble.querySelector('.streaming');
  const mine = epoch;
  let started = false;
  let restarted = false;
  const book = $('book-filter').value;
  const request = {
    question: q,
    mode: $('mode').value,
    lang: $('answer-language').value,
    books: book ? [Number(book)] : undefined,
    conversation: conversation ?? undefined,
  };
  const controller = new AbortController();
  const cancel = $('cancel-ask');
  cancel.hidden = api.inApp;
  cancel.onclick = () => controller.abort();
  try {
    await api.ask(request, (event, data) => {
      if (event === 'restart') {
        // Classroom mode: the teacher's question went ahead of this answer, which starts
        // again after it; the words shown so far are taken back.
        restarted = true;
        started = false;
        stream.classList.add('muted');
        stream.textContent = t('ask.restarted');
      } else if (event === 'queued') {
        // Classroom mode: other questions are before this one at the model.
        // After a restart, only the teacher's question is usually ahead: say why it waits.
        stream.textContent = restarted && data.ahead <= 1 ? t('ask.restarted')
          : data.ahead > 0 ? t('ask.queued', { ahead: data.ahead })
            : t(bubble.querySelector('.quotes') ? 'ask.tutor_writing' : 'ask.thinking');
      } else if (event === 'sources') {
        // The passages are known before the model writes (in a class, while it waits).
        if (mine === epoch) showSources(data.citations);
        // The textbook's quotes are the answer's beginning: shown at once, the tutor's
        // checked sentences stream in under them when the model's turn comes.
        if (data.quotes && !bubble.querySelector('.quotes')) {
          const quotes = el('div', 'body quotes');
          renderAnswer(quotes, data.quotes, (data.citations || []).length, (n) => showPage(n));
          bubble.insertBefore(quotes, stream);
          if (!started) stream.textContent = t('ask.tutor_writing');
          scrollDown();
        }
      } else if (event === 'token') {
        if (!started) { started = true; stream.textContent = ''; stream.classList.remove('muted'); }
        stream.textContent += data.text;
        scrollDown();
      } else if (event === 'answer') {
        showAnswer(bubble, data);
        // The student may have started another conversation meanwhile: leave it alone.
        if (mine !== epoch) return;
        showSources(data.citations);
        if (data.conversation_id) conversation = data.conversation_id;
        if (bubble.offsetHeight > $('messages').clientHeight / 2) bubble.scrollIntoView({ block: 'start' });
      } else if (event === 'error') {
        bubble.replaceChildren(el('div', 'error', data.message));
      }
    }, controller.signal);
  } catch (err) {
    bubble.replaceChildren(el('div', err.kind === 'cancelled' ? 'muted' : 'error', err.kind === 'cancelled' ? t('ask.cancelled') : errorText(err)));
    // Classroom mode: the teacher ended the class; the page goes back to the join form.
    if (err.kind === 'class_ended') window.dispatchEvent(new CustomEvent('vidya:class-ended'));
  } finally {
    busy = false;
    cancel.hidden = true;
    $('send').disabled = false;
    if (bubble.offsetHeight <= $('messages').clientHeight / 2) scrollDown();
    refreshConversations();
    box.focus();
  }
}

/** Reloads the conversation list. */
export async function refreshConversations() {
  let list = [];
  try { list = await api.call('conversations'); } catch { return; }
  const ul = $('conversation-list');
  ul.replaceChildren();
  for (const c of list) {
    const li = el('li');
    if (c.id === conversation) li.classList.add('current');
    const open = el('button', 'open');
    open.type = 'button';
    open.title = c.title;
    open.append(el('span', 'title', c.title), el('span', 'date', (c.updated_at || '').slice(0, 16)));
    open.addEventListener('click', () => openConversation(c.id));
    const del = el('button', 'delete', '×');
    del.type = 'button';
    del.title = t('ask.delete');
    del.setAttribute('aria-label', `${t('ask.delete')}: ${c.title}`);
    del.addEventListener('click', async () => {
      if (!window.confirm(t('ask.delete_confirm'))) return;
      try { await api.call('delete_conversation', { id: c.id }); } catch (err) { toast(err.message); }
      if (conversation === c.id) newConversation();
      refreshConversations();
    });
    li.append(open, del);
    ul.append(li);
  }
}

function newConversation() {
  epoch += 1;
  conversation = null;
  $('messages').replaceChildren();
  showSources([]);
  refreshConversations();
  $('question').focus();
}

async function openConversation(id) {
  let turns;
  try { turns = await api.call('conversation', { id }); } catch (err) { toast(err.message); return; }
  epoch += 1;
  conversation = id;
  const box = $('messages');
  box.replaceChildren();
  let last = [];
  for (const turn of turns) {
    addQuestion(turn.question);
    const b = el('div', 'msg answer');
    const body = el('div', 'body');
    const cites = Array.isArray(turn.citations) ? turn.citations : [];
    renderAnswer(body, turn.answer, cites.length, (n) => { showSources(cites); showPage(n); });
    b.append(body, el('div', 'meta', statusLabel(turn)));
    box.append(b);
    last = cites;
  }
  showSources(last);
  refreshConversations();
  scrollDown();
}

/** Fills the book filter and the empty-library notice. */
export function setBooks(books) {
  const sel = $('book-filter');
  const keep = sel.value;
  while (sel.options.length > 1) sel.remove(1);
  for (const b of books) {
    const o = document.createElement('option');
    o.value = String(b.id);
    o.textContent = b.title;
    sel.append(o);
  }
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  $('empty-library').hidden = books.length > 0;
}

/** Applies the settings' default mode and language. */
export function setDefaults(settings) {
  $('mode').value = settings.mode;
  $('answer-language').value = settings.language;
}

export function toast(message) {
  const box = $('toast');
  box.textContent = message;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 5000);
}

function zoom() {
  const img = $('page-image');
  if (img.hidden || !img.src) return;
  $('zoom-image').src = img.src;
  $('zoom-image').alt = img.alt;
  $('page-zoom').showModal();
}

export function init() {
  $('page-image').addEventListener('click', zoom);
  $('page-image').addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); zoom(); } });
  $('page-zoom').addEventListener('click', () => $('page-zoom').close());
  $('ask-form').addEventListener('submit', submit);
  $('question').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); $('ask-form').requestSubmit(); }
  });
  $('new-conversation').addEventListener('click', newConversation);
  refreshConversations();
}

/** Re-labels what code wrote (after a language switch). */
export function relabel() {
  showSources(shown);
}
