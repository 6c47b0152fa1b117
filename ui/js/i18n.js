// Interface strings: one JSON file per language in ui/i18n/ (en, hi, mr, kn, te, ta).
// Elements name their string with data-i18n (text), data-i18n-placeholder or
// data-i18n-title; code calls t(key, {name: value}). A key missing from a language falls back
// to English.

import { LANGUAGES as MENU } from './languages.js';

export const LANGUAGES = MENU.map(([code]) => code);
let english = {};
let strings = {};
let current = 'en';
let requested = 0; // the latest switch wins even when an earlier file arrives later

async function load(lang) {
  const res = await fetch(`i18n/${lang}.json`);
  if (!res.ok) throw new Error(`i18n/${lang}.json: HTTP ${res.status}`);
  return res.json();
}

/** The current interface language. */
export function language() {
  return current;
}

/** Switches the interface to `lang` and re-labels the page. */
export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) lang = 'en';
  const ticket = ++requested;
  if (!Object.keys(english).length) english = await load('en');
  const loaded = lang === 'en' ? english : await load(lang);
  if (ticket !== requested) return;
  strings = loaded;
  current = lang;
  document.documentElement.lang = lang;
  apply(document);
  try { localStorage.setItem('vidya.ui_language', lang); } catch { /* private mode */ }
}

/** The string `key` with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const s = strings[key] ?? english[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

/** An engine error in the interface language: the string `err.<kind>` when there is one
 * (a number of seconds in the message fills `{s}`), else the engine's own English message. */
export function errorText(err) {
  const key = `err.${err && err.kind}`;
  if (!(key in english)) return err && err.message ? err.message : String(err);
  const seconds = /(\d+) s\b/.exec((err && err.message) || '');
  return t(key, { s: seconds ? seconds[1] : '' });
}

/** Labels every element under `root` that names a string. */
export function apply(root) {
  root.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.dataset.i18n); });
  root.querySelectorAll('[data-i18n-placeholder]').forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  root.querySelectorAll('[data-i18n-title]').forEach((el) => {
    el.title = t(el.dataset.i18nTitle);
    el.setAttribute('aria-label', el.title);
  });
}

/** The first of the browser's preferred languages that the interface has (a student's
 * phone set to Hindi opens the join page in Hindi), if any. */
export function browserLanguage() {
  const have = MENU.map(([code]) => code);
  const wanted = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language || ''];
  for (const tag of wanted) {
    const code = String(tag).toLowerCase().split('-')[0];
    if (have.includes(code)) return code;
  }
  return null;
}

/** The language saved in this browser, if any. */
export function savedLanguage() {
  try { return localStorage.getItem('vidya.ui_language'); } catch { return null; }
}
