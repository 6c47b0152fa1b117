// Safe rendering of model answers. The model's text is untrusted: it may contain HTML or
// script (copied from a PDF, or made up). It is turned into HTML by `marked` with every raw
// HTML tag escaped (so `<script>` is shown as the text "<script>"), then cleaned again by
// DOMPurify with a short allow-list and no attributes at all, and the [n] citation markers
// become buttons built with DOM calls. Nothing in an answer can run.

import { marked } from '../vendor/marked.esm.js';
import DOMPurify from '../vendor/purify.es.js';

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]);

// Raw HTML in the Markdown (block or inline) is written out as text.
marked.use({ renderer: { html: (token) => escapeHtml(token.text ?? token.raw ?? '') } });

const ALLOWED_TAGS = ['p', 'br', 'strong', 'em', 'b', 'i', 'ul', 'ol', 'li', 'code', 'pre', 'blockquote', 'h3', 'h4', 'hr'];

/** Sanitised HTML of `markdown` (a string). */
export function safeHtml(markdown) {
  const html = marked.parse(String(markdown ?? ''), { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR: [] });
}

/**
 * Renders an answer into `container`: Markdown made safe, each [n] a button that calls
 * onCite(n). Only numbers of existing citations (1..count) become buttons.
 */
export function renderAnswer(container, text, count, onCite) {
  const holder = document.createElement('div');
  holder.innerHTML = safeHtml(text);
  const walker = document.createTreeWalker(holder, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    const parts = node.nodeValue.split(/(\[\d{1,2}\])/);
    if (parts.length === 1) continue;
    const frag = document.createDocumentFragment();
    for (const part of parts) {
      const m = /^\[(\d{1,2})\]$/.exec(part);
      const n = m ? Number(m[1]) : 0;
      if (n >= 1 && n <= count) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'cite';
        b.dataset.n = String(n);
        b.textContent = `[${n}]`;
        b.addEventListener('click', () => onCite(n));
        frag.appendChild(b);
      } else if (part) {
        frag.appendChild(document.createTextNode(part));
      }
    }
    node.replaceWith(frag);
  }
  container.replaceChildren(...holder.childNodes);
}

/** The chapter worth naming beside `book`: none when there is none or the book's title already
 * ends with it (a one-file book named with its chapter, "Biology 2e - Chapter 4: …"). */
export function chapterBeside(book, chapter) {
  return chapter && !book.endsWith(chapter) ? chapter : '';
}

/** Plain text into an element (never parsed as HTML). */
export function text(el, value) {
  el.textContent = value == null ? '' : String(value);
  return el;
}

/** A new element with class and text. */
export function el(tag, className, content) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (content != null) e.textContent = String(content);
  return e;
}
