// The one place that talks to Vidya's engine: Tauri IPC inside the desktop app, HTTP
// (`vidya serve`) in a browser. Every call returns plain JSON; streams deliver
// (event, data) pairs — the same names and objects in both: `token`/`answer`/`error` for an
// answer, `progress`/`book`/`error`/`note`/`done` for an ingest, `model`/`reading`/`done` for
// the setup wizard's actions.

const tauri = window.__TAURI__;
export const inApp = Boolean(tauri && tauri.core);

/** An error from the engine, with its stable `kind` and the message to show. */
export class VidyaError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

function asError(e) {
  if (e instanceof VidyaError) return e;
  if (e && typeof e === 'object' && 'kind' in e) return new VidyaError(e.kind, e.message);
  return new VidyaError('unreachable', String(e && e.message ? e.message : e));
}

// HTTP routes of each command: [method, path(args), body(args)].
const routes = {
  health: () => ['GET', '/health'],
  books: () => ['GET', '/api/books'],
  delete_book: (a) => ['DELETE', `/api/books/${encodeURIComponent(a.id)}`],
  stats: () => ['GET', '/api/stats'],
  class_report: (a) => ['GET', `/api/class-report?since=${encodeURIComponent(a.since || 'all')}`],
  // In a browser the CSV is a download link (dashboard.js); this route is for scripts.
  class_report_csv: (a) => ['GET', `/api/class-report.csv?since=${encodeURIComponent(a.since || 'all')}`],
  answer_machines: () => ['GET', '/api/answer-machines'],
  get_settings: () => ['GET', '/api/settings'],
  save_settings: (a) => ['PUT', '/api/settings', a.settings],
  conversations: () => ['GET', '/api/conversations'],
  conversation: (a) => ['GET', `/api/conversations/${encodeURIComponent(a.id)}`],
  delete_conversation: (a) => ['DELETE', `/api/conversations/${encodeURIComponent(a.id)}`],
  cancel_ingest: () => ['POST', '/api/ingest/cancel'],
  setup_report: () => ['GET', '/api/setup'],
  setup_start_ollama: () => ['POST', '/api/setup/ollama/start'],
  setup_done: (a) => ['POST', '/api/setup/done', { done: a.done }],
  // Classroom mode (browser only: the desktop window is always the teacher's).
  session: () => ['GET', '/api/session'],
  join: (a) => ['POST', '/api/join', { code: a.code, name: a.name }],
  classroom: () => ['GET', '/api/classroom'],
  teacher_login: (a) => ['POST', '/api/teacher', { pin: a.pin }],
  set_pin: (a) => ['PUT', '/api/teacher-pin', { pin: a.pin }],
  classroom_start: () => ['POST', '/api/classroom/start'],
  classroom_end: () => ['POST', '/api/classroom/end'],
};

async function httpJson(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new VidyaError('unreachable', 'Vidya is not running: start it again (vidya serve) and reload this page.');
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!res.ok) {
    const err = data && data.error ? data.error : { kind: 'http', message: `HTTP ${res.status}` };
    throw new VidyaError(err.kind, err.message);
  }
  return data;
}

/** Calls a command and returns its JSON result. Throws VidyaError. */
export async function call(command, args = {}) {
  if (inApp) {
    try { return await tauri.core.invoke(command, args); } catch (e) { throw asError(e); }
  }
  const route = routes[command];
  if (!route) throw new VidyaError('bad_option', `unknown command ${command}`);
  const [method, path, body] = route(args);
  return httpJson(method, path, body);
}

/** Reads a server-sent event stream from a fetch response, calling onEvent(name, data). */
async function readSse(res, onEvent) {
  if (!res.ok) {
    let err = { kind: 'http', message: `HTTP ${res.status}` };
    try { err = (await res.json()).error || err; } catch { /* keep */ }
    throw new VidyaError(err.kind, err.message);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(name, JSON.parse(data.join('\n')));
    }
  }
}

async function postStream(path, body, headers, onEvent, signal) {
  let res;
  try {
    res = await fetch(path, { method: 'POST', headers, body, signal });
  } catch (e) {
    if (e && e.name === 'AbortError') throw new VidyaError('cancelled', 'cancelled');
    throw new VidyaError('unreachable', 'Vidya is not running: start it again (vidya serve) and reload this page.');
  }
  await readSse(res, onEvent);
}

// Runs a Tauri command whose progress arrives on a channel; resolves after the command
// returned and the final event (`last`) arrived.
function tauriStream(command, args, last, onEvent) {
  return new Promise((resolve, reject) => {
    const channel = new tauri.core.Channel();
    let ended = false;
    let returned = false;
    channel.onmessage = (m) => {
      onEvent(m.event, m.data);
      if (last.includes(m.event)) { ended = true; if (returned) resolve(); }
    };
    tauri.core.invoke(command, { ...args, onEvent: channel })
      .then(() => { returned = true; if (ended) resolve(); })
      .catch((e) => reject(asError(e)));
  });
}

/**
 * Asks a question; onEvent receives `sources` (`{citations}`, once retrieved), `queued`
 * (`{ahead}`, while it waits for the model),
 * `token`, then `answer` or `error`. `signal` (an AbortSignal, browser only) cancels it: the
 * question leaves the queue or the model stops; the promise rejects with kind `cancelled`.
 */
export async function ask(request, onEvent, signal) {
  if (inApp) return tauriStream('ask', { request }, ['answer', 'error'], onEvent);
  try {
    return await postStream('/api/ask', JSON.stringify(request), { 'Content-Type': 'application/json' }, onEvent, signal);
  } catch (e) {
    if (e && e.name === 'AbortError') throw new VidyaError('cancelled', 'cancelled');
    throw e;
  }
}

/** Adds the .gguf file at `path` to Ollama; onEvent receives `model`, then `done` or `error`. */
export function setupImport(path, name, onEvent) {
  if (inApp) return tauriStream('setup_import', { path, name }, ['done', 'error'], onEvent);
  return postStream('/api/setup/import', JSON.stringify({ path, name }), { 'Content-Type': 'application/json' }, onEvent);
}

/** Downloads a model through Ollama; events as setupImport. */
export function setupPull(model, onEvent) {
  if (inApp) return tauriStream('setup_pull', { model }, ['done', 'error'], onEvent);
  return postStream('/api/setup/pull', JSON.stringify({ model }), { 'Content-Type': 'application/json' }, onEvent);
}

/** Asks the test question about the sample chapter; onEvent receives `reading`, `token`, then `answer` or `error`. */
export function setupSample(lang, onEvent) {
  const body = lang ? { lang } : {};
  if (inApp) return tauriStream('setup_sample', { lang }, ['answer', 'error'], onEvent);
  return postStream('/api/setup/sample', JSON.stringify(body), { 'Content-Type': 'application/json' }, onEvent);
}

/** Uploads and ingests one dropped or picked File; onEvent receives ingest events. */
export async function ingestFile(file, onEvent) {
  if (inApp) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    // The name travels as an ASCII-only JSON string in a header.
    const name = JSON.stringify(file.name).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
    let path;
    try {
      path = await tauri.core.invoke('save_upload', bytes, { headers: { 'x-file-name': name } });
    } catch (e) { throw asError(e); }
    return tauriStream('ingest', { paths: [path] }, ['done'], onEvent);
  }
  return postStream(`/api/ingest?name=${encodeURIComponent(file.name)}`, file, { 'Content-Type': 'application/octet-stream' }, onEvent);
}

/** Reads a stored book again from its file; onEvent receives ingest events. */
export function reindexBook(id, onEvent) {
  if (inApp) return tauriStream('reindex_book', { id }, ['done'], onEvent);
  return postStream(`/api/books/${encodeURIComponent(id)}/reindex`, '', {}, onEvent);
}

/** The cited page as an object URL of a PNG (revoke it when replaced). */
export async function pageImage(request) {
  let blob;
  if (inApp) {
    let buf;
    try { buf = await tauri.core.invoke('page_image', { request }); } catch (e) { throw asError(e); }
    blob = new Blob([buf], { type: 'image/png' });
  } else {
    let res;
    try {
      res = await fetch('/api/page-image', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
    } catch (e) {
      throw new VidyaError('unreachable', 'Vidya is not running: start it again (vidya serve) and reload this page.');
    }
    if (!res.ok) {
      let err = { kind: 'http', message: `HTTP ${res.status}` };
      try { err = (await res.json()).error || err; } catch { /* keep */ }
      throw new VidyaError(err.kind, err.message);
    }
    blob = await res.blob();
  }
  return URL.createObjectURL(blob);
}

/** Tells the desktop app the window can take input (it logs the start-up time). */
export function ready() {
  if (inApp) tauri.core.invoke('ui_ready').catch(() => {});
}
