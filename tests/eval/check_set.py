#!/usr/bin/env python3
"""Checks Vidya's realistic eval set (tests/eval/*.jsonl) against the shared textbooks.

For every answerable question (students.jsonl, and every other set named with --students, such
as the new-question sets students_fresh.jsonl and students_blind.jsonl):
  * `source.pdf_file` exists in the book's folder and `source.pdf_pages` names one page;
  * `evidence` occurs on that page of the PDF (whitespace, line-break hyphens and curly quotes
    normalised; text from pdfium, the library Vidya reads PDFs with);
  * `evidence` is running text: it lies inside a paragraph or list item of the book's own
    structure (`sections.jsonl` blocks), not in a figure caption or alt text, a learning
    objective, a "Link to Learning" or "Visual Connection" box, a section summary or the key
    terms;
  * `answers` (the must-mention terms) occur in the evidence or on the page.
For every unanswerable question (off_topic.jsonl): none of its `key_terms` occurs as a word in
either book (all pages of all chapters).
For every follow-up pair (followups.jsonl): the second turn is checked like an answerable
question.
Also: ids are unique over all files, every record has a `split` of dev or test, and the set has
the sizes the eval needs (>= 150 answerable in the first --students file, >= 30 of them Hindi
or Hinglish, >= 50 unanswerable, >= 10 follow-up pairs).

Usage: python3 tests/eval/check_set.py [--data ../shared/data] [--students F [F ...]] [--off-topic F]
       [--followups F] [--no-size-check]
Needs pypdfium2 (pip install pypdfium2==5.15.2). Exit 0 when every check holds, 1 otherwise,
with one line per problem.
"""
import argparse
import json
import os
import re
import sys

BOOKS = {"Biology 2e": "openstax_biology2e", "Physics": "openstax_physics"}
NOT_RUNNING_TEXT_NOTES = {"Link to Learning", "Visual Connection"}
ENDS_BODY = {"Section Summary", "Key Terms"}
BOX_HEADINGS = {"Section Key Terms"}  # Physics: a table of terms at the start of each section


def norm(s):
    s = s.replace("\u00ad", "")
    s = re.sub(r"(?<=\w)-\s*\n\s*(?=\w)", "-", s)
    s = s.replace("“", '"').replace("”", '"').replace("’", "'").replace("‘", "'")
    s = s.replace("\u00a0", " ")
    return re.sub(r"\s+", " ", s).strip()


def load_pages(data, book):
    import pypdfium2 as pdfium
    folder = os.path.join(data, BOOKS[book])
    pages = {}
    for name in sorted(os.listdir(os.path.join(folder, "pdf"))):
        if not name.endswith(".pdf"):
            continue
        doc = pdfium.PdfDocument(os.path.join(folder, "pdf", name))
        pages["pdf/" + name] = [norm(doc[i].get_textpage().get_text_range()) for i in range(len(doc))]
    return pages


def running_text(data, book):
    """Normalised paragraphs and list items that are running text, per chapter number."""
    out = {}
    with open(os.path.join(data, BOOKS[book], "sections.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            ch = r["chapter_no"]
            in_box = False
            ended = False
            for b in r["blocks"]:
                kind, text = b[0], b[1] if len(b) > 1 else ""
                if kind == "note_title":
                    in_box = text in NOT_RUNNING_TEXT_NOTES or "Learning Objectives" in text
                    continue
                if kind in ("heading2", "heading3", "heading4", "subheading"):
                    in_box = text in BOX_HEADINGS
                    ended = ended or text in ENDS_BODY
                    continue
                if kind in ("para", "item") and not in_box and not ended:
                    if kind == "item" and text.startswith("•") and "Learning" in str(r.get("learning_objectives")):
                        if any(norm(text.lstrip("• ")) in norm(lo) for lo in r.get("learning_objectives") or []):
                            continue
                    out.setdefault(ch, []).append(norm(text))
    return out


def words(s):
    return re.findall(r"\w+", s.lower())


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "..", "shared", "data"))
    ap.add_argument("--students", nargs="+", default=[os.path.join(here, "students.jsonl")],
                    help="one or more student-question sets (JSONL); ids must be unique over all of them")
    ap.add_argument("--off-topic", default=os.path.join(here, "off_topic.jsonl"))
    ap.add_argument("--followups", default=os.path.join(here, "followups.jsonl"))
    ap.add_argument("--no-size-check", action="store_true", help="check records only (for a partial file)")
    args = ap.parse_args()
    data = os.environ.get("VIDYA_SHARED_DATA", args.data)
    if not os.path.isdir(data):
        print(f"skipped: no shared data at {data}")
        return 0
    problems = []
    pages = {b: load_pages(data, b) for b in BOOKS}
    body = {b: running_text(data, b) for b in BOOKS}
    ids = set()

    def check_answerable(r, where):
        src = r.get("source") or {}
        book, file, span = src.get("book"), src.get("pdf_file"), src.get("pdf_pages")
        if book not in BOOKS:
            problems.append(f"{where}: source.book must be one of {sorted(BOOKS)}")
            return
        if file not in pages[book]:
            problems.append(f"{where}: {book} has no {file}")
            return
        if not (isinstance(span, list) and len(span) == 2 and span[0] == span[1]):
            problems.append(f"{where}: source.pdf_pages must name one page, [p, p]")
            return
        p = span[0]
        if not 1 <= p <= len(pages[book][file]):
            problems.append(f"{where}: {file} has no page {p}")
            return
        ev = norm(r.get("evidence", ""))
        if len(ev.split()) < 5:
            problems.append(f"{where}: evidence is shorter than five words")
            return
        if ev not in pages[book][file][p - 1]:
            near = [i + 1 for i, t in enumerate(pages[book][file]) if ev in t]
            problems.append(f"{where}: evidence not on {file} page {p}" + (f" (it is on page {near})" if near else ""))
        ch = int(re.search(r"(\d+)", file).group(1))
        if not any(ev in para for para in body[book].get(ch, [])):
            problems.append(f"{where}: evidence is not running text (caption, alt text, objective, box, summary or key terms?)")
        text = pages[book][file][p - 1].lower()
        for a in r.get("answers") or []:
            if norm(a).lower() not in text:
                problems.append(f"{where}: must-mention {a!r} is not on the page")
        if not r.get("question", "").strip():
            problems.append(f"{where}: empty question")

    def common(r, where):
        if r.get("id") in ids:
            problems.append(f"{where}: duplicate id {r.get('id')}")
        ids.add(r.get("id"))
        if r.get("split") not in ("dev", "test"):
            problems.append(f"{where}: split must be dev or test")
        if r.get("language") not in ("en", "hi", "hinglish"):
            problems.append(f"{where}: language must be en, hi or hinglish")

    answerable = 0
    indic = 0
    # The size rule is the main set's (the first file's): the other sets are extra checks.
    main_answerable = main_indic = None
    for students in args.students:
        name = os.path.basename(students)
        for i, line in enumerate((open(students, encoding="utf-8") if os.path.exists(students) else [])):
            r = json.loads(line)
            where = f"{name}:{i + 1} ({r.get('id')})"
            common(r, where)
            check_answerable(r, where)
            answerable += 1
            indic += r.get("language") in ("hi", "hinglish")
        if main_answerable is None:
            main_answerable, main_indic = answerable, indic
    alltext = {b: " ".join(t for f in pages[b].values() for t in f).lower() for b in BOOKS}
    vocab = set()
    for b in BOOKS:
        vocab.update(words(alltext[b]))
    off = 0
    for i, line in enumerate((open(args.off_topic, encoding="utf-8") if os.path.exists(args.off_topic) else [])):
        r = json.loads(line)
        where = f"off_topic.jsonl:{i + 1} ({r.get('id')})"
        common(r, where)
        terms = r.get("key_terms") or []
        if not terms:
            problems.append(f"{where}: no key_terms")
        for t in terms:
            ws = words(t)
            hit = all(w in vocab for w in ws) and (len(ws) == 1 or any(norm(t).lower() in alltext[b] for b in BOOKS))
            if hit:
                problems.append(f"{where}: key term {t!r} occurs in the books")
        off += 1
    pairs = 0
    for i, line in enumerate((open(args.followups, encoding="utf-8") if os.path.exists(args.followups) else [])):
        r = json.loads(line)
        where = f"followups.jsonl:{i + 1} ({r.get('id')})"
        common(r, where)
        turns = r.get("turns") or []
        if len(turns) != 2:
            problems.append(f"{where}: a pair has two turns")
            continue
        for j, t in enumerate(turns):
            check_answerable({**t, "language": r.get("language")}, f"{where} turn {j + 1}")
        pairs += 1
    for what, n, need in [("answerable questions", main_answerable, 150), ("Hindi/Hinglish questions", main_indic, 30),
                          ("unanswerable questions", off, 50), ("follow-up pairs", pairs, 10)]:
        if n < need and not args.no_size_check:
            problems.append(f"the set has {n} {what}; it needs at least {need}")
    for p in problems:
        print(p)
    print(f"{answerable} answerable ({indic} Hindi/Hinglish), {off} unanswerable, {pairs} follow-up pairs: "
          + ("all checks hold" if not problems else f"{len(problems)} problem(s)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
