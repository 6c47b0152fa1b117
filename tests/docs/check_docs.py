#!/usr/bin/env python3
"""Checks that what README.md and docs/**/*.md tell people to type and open still exists.

Run from anywhere (Python 3 standard library only; nothing long is run):

    python3 tests/docs/check_docs.py                       # the vidya CLI read from its clap source
    python3 tests/docs/check_docs.py --vidya target/debug/vidya   # ... or from `vidya <cmd> --help`
    python3 tests/docs/check_docs.py --self-test           # proves the checker catches mistakes

What it checks, in every Markdown file given (default: README.md and docs/**/*.md):

* commands, in fenced ```sh / ```bash / ```console / ```shell / untagged blocks and in inline
  code: every `vidya ...` (also `target/debug/vidya`, `target/release/vidya`, `vidya.exe`,
  `cargo run -p vidya-cli -- ...`) names subcommands and flags the program has; every
  `cargo xtask ...` names a command and flags of `xtask/src/main.rs`. The truth is the clap
  definitions (`#[derive(Parser/Args/Subcommand)]`, `#[arg(long ...)]`, `#[command(flatten)]`,
  `#[command(subcommand)]`; field names snake_case -> kebab-case), or with `--vidya PATH` the
  flags `PATH <subcommand> --help` prints;
* repository paths: a token in inline code or a shell block that starts with a top-level folder
  of the repository (crates/, docs/, installers/, resources/, src-tauri/, tests/, ui/, xtask/,
  .ci/, .github/) must exist (globs and <placeholders> must match something); paths under
  target/ and the generated resources/native, resources/models, ui/fonts are allowed;
* links: every relative Markdown link or image must point at a file or folder that exists, and
  an anchor (`#heading` or `file.md#heading`) at a heading of that file (GitHub's slugs).

Each problem is printed as `FILE:LINE: message`; the exit status is 1 when there is any.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import unicodedata
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Top-level folders whose paths are checked, and paths that are made by builds or `cargo xtask
# setup` (not in a clean clone), which are allowed without a check.
KNOWN_TOP = ("crates", "docs", "installers", "resources", "src-tauri", "tests", "ui", "xtask",
             ".ci", ".github")
GENERATED = ("target", "resources/native", "resources/models", "ui/fonts",
             "tests/llm-server/node_modules", "tests/e2e/node_modules")
SHELL_LANGS = {"", "sh", "bash", "console", "shell", "shell-session", "zsh"}
VIDYA_NAMES = {"vidya", "vidya.exe"}
WORD = re.compile(r"^[a-z][a-z0-9-]*$")


# ---------------------------------------------------------------------------------------------
# The command-line model: what subcommands and flags a program has.
# ---------------------------------------------------------------------------------------------

@dataclass
class Cmd:
    """One (sub)command: its long and short flags (name -> takes a value), subcommands and
    whether it takes positional arguments."""

    name: str
    longs: dict = field(default_factory=dict)
    shorts: dict = field(default_factory=dict)
    subs: dict = field(default_factory=dict)
    positional: bool = False
    globals: set = field(default_factory=set)  # ("--", name) / ("-", letter) of global args

    def add_help(self, version: bool = False) -> None:
        self.longs.setdefault("help", False)
        self.shorts.setdefault("h", False)
        if version:
            self.longs.setdefault("version", False)
            self.shorts.setdefault("V", False)


def strip_rust_comments(src: str) -> str:
    """The Rust source without comments (doc comments included); strings and chars are kept."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', src[i:i + 8]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'r(#*)"', src[i:])
            end = src.find('"' + m.group(1), i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(m.group(1))
            out.append(src[i:end])
            i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", src[i:])
            if m:  # a char literal; otherwise a lifetime
                out.append(m.group(0))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _skip_string(s: str, i: int) -> int:
    """Index after the string or char literal that starts at s[i]."""
    q = s[i]
    if q == "'":
        m = re.match(r"'(\\.[^']*|[^\\'])'", s[i:])
        return i + (len(m.group(0)) if m else 1)
    j = i + 1
    while j < len(s) and s[j] != q:
        j += 2 if s[j] == "\\" else 1
    return j + 1


def _match_close(s: str, i: int) -> int:
    """Index of the bracket closing the one at s[i] (strings skipped)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack, j = [pairs[s[i]]], i + 1
    while j < len(s):
        c = s[j]
        if c in "\"'":
            j = _skip_string(s, j)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            stack.pop()
            if not stack:
                return j
        j += 1
    return len(s) - 1


def _split_top(s: str, sep: str = ",") -> list:
    """Splits at `sep` outside brackets, angle brackets and strings."""
    parts, depth, start, j = [], 0, 0, 0
    while j < len(s):
        c = s[j]
        if c in "\"'":
            j = _skip_string(s, j)
            continue
        if c in "([{<":
            depth += 1
        elif c in ")]}" or (c == ">" and s[j - 1:j] != "-" and s[j - 1:j] != "="):
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(s[start:j])
            start = j + 1
        j += 1
    parts.append(s[start:])
    return [p.strip() for p in parts if p.strip()]


def _take_attrs(body: str, i: int):
    """The `#[...]` attributes starting at body[i] (whitespace skipped): (list of inner texts,
    index after them)."""
    attrs = []
    while True:
        while i < len(body) and body[i].isspace():
            i += 1
        if body.startswith("#[", i):
            j = _match_close(body, i + 1)
            attrs.append(body[i + 2:j].strip())
            i = j + 1
        else:
            return attrs, i


def _attr_args(attrs: list, *names: str) -> list:
    """The comma-separated arguments of every attribute called one of `names` (`arg(...)`)."""
    out = []
    for a in attrs:
        m = re.match(r"(\w+)\s*\((.*)\)\s*$", a, re.S)
        if m and m.group(1) in names:
            out.extend(_split_top(m.group(2)))
    return out


def _kv(arg: str):
    m = re.match(r"(\w+)\s*(?:=\s*(.*))?$", arg, re.S)
    return (m.group(1), (m.group(2) or "").strip()) if m else (arg, "")


def _unquote(v: str) -> str:
    v = v.strip()
    if len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]:
        return v[1:-1]
    return v


def _base_type(ty: str) -> str:
    """`Option<Box<crate::x::Args>>` -> `Args`."""
    ty = ty.strip()
    while True:
        m = re.match(r"^(?:[\w:]*::)?(Option|Box|Vec)\s*<(.*)>$", ty, re.S)
        if not m:
            break
        ty = m.group(2).strip()
    return ty.split("::")[-1].strip()


def kebab(name: str) -> str:
    """CamelCase or snake_case -> kebab-case, as clap derives names."""
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", name)
    return name.replace("_", "-").lower()


class ClapSource:
    """The clap derive definitions of a set of Rust files."""

    def __init__(self, files):
        self.items = {}  # name -> (kind, derives, attrs, body)
        for f in files:
            src = strip_rust_comments(Path(f).read_text(encoding="utf-8"))
            for m in re.finditer(r"(?:pub(?:\s*\([^)]*\))?\s+)?(struct|enum)\s+(\w+)\s*(?:<[^{;]*>)?\s*\{", src):
                start = m.end() - 1
                body = src[start + 1:_match_close(src, start)]
                attrs = self._attrs_before(src, m.start())
                derives = set()
                for a in attrs:
                    dm = re.match(r"derive\s*\((.*)\)", a, re.S)
                    if dm:
                        derives |= {d.strip().split("::")[-1] for d in dm.group(1).split(",")}
                self.items.setdefault(m.group(2), (m.group(1), derives, attrs, body))

    @staticmethod
    def _attrs_before(src: str, pos: int) -> list:
        """Attributes directly above the item at `pos`."""
        attrs, j = [], pos
        while True:
            k = j - 1
            while k >= 0 and src[k].isspace():
                k -= 1
            if k < 0 or src[k] != "]":
                return attrs
            # find the matching `#[`
            depth, p = 0, k
            while p >= 0:
                if src[p] == "]":
                    depth += 1
                elif src[p] == "[":
                    depth -= 1
                    if depth == 0:
                        break
                p -= 1
            if p <= 0 or src[p - 1] != "#":
                return attrs
            attrs.insert(0, src[p + 1:k].strip())
            j = p - 1

    def root(self, version_default: bool = True) -> Cmd:
        roots = [n for n, (k, d, _, _) in self.items.items() if k == "struct" and "Parser" in d]
        if not roots:
            raise SystemExit("check_docs: no #[derive(Parser)] struct found")
        name = roots[0]
        _, _, attrs, _ = self.items[name]
        cmd_args = [_kv(a) for a in _attr_args(attrs, "command", "clap")]
        cmd = Cmd(next((_unquote(v) for k, v in cmd_args if k == "name"), kebab(name)))
        self._fill_from_struct(cmd, name, [])
        cmd.add_help(version=any(k == "version" for k, _ in cmd_args))
        self._propagate(cmd, {}, {})
        return cmd

    def _fields(self, body: str):
        """(attrs, name, type) of each named field of a struct body."""
        i = 0
        out = []
        while i < len(body):
            attrs, i = _take_attrs(body, i)
            if i >= len(body):
                break
            # the field up to the next top-level comma
            depth, j = 0, i
            while j < len(body):
                c = body[j]
                if c in "\"'":
                    j = _skip_string(body, j)
                    continue
                if c in "([{<":
                    depth += 1
                elif c in ")]}" or (c == ">" and body[j - 1] != "-"):
                    depth -= 1
                elif c == "," and depth == 0:
                    break
                j += 1
            text = body[i:j].strip()
            i = j + 1
            m = re.match(r"(?:pub(?:\s*\([^)]*\))?\s+)?(\w+)\s*:\s*(.+)$", text, re.S)
            if m:
                out.append((attrs, m.group(1), m.group(2).strip()))
        return out

    def _variants(self, body: str):
        """(attrs, name, kind, inner) of each enum variant: kind 'unit', 'struct' or 'tuple'."""
        i, out = 0, []
        while i < len(body):
            attrs, i = _take_attrs(body, i)
            m = re.compile(r"\s*(\w+)\s*").match(body, i)
            if not m:
                break
            name, i = m.group(1), m.end()
            kind, inner = "unit", ""
            if i < len(body) and body[i] in "({":
                j = _match_close(body, i)
                kind = "tuple" if body[i] == "(" else "struct"
                inner = body[i + 1:j]
                i = j + 1
            while i < len(body) and body[i] != ",":
                i += 1
            i += 1
            out.append((attrs, name, kind, inner))
        return out

    def _fill_fields(self, cmd: Cmd, fields, seen) -> None:
        for attrs, fname, ftype in fields:
            cargs = [_kv(a) for a in _attr_args(attrs, "command", "clap")]
            if any(k == "flatten" for k, _ in cargs):
                self._fill_from_struct(cmd, _base_type(ftype), seen)
                continue
            if any(k == "subcommand" for k, _ in cargs):
                self._fill_subs(cmd, _base_type(ftype), seen)
                continue
            aargs = [_kv(a) for a in _attr_args(attrs, "arg", "clap")]
            keys = dict(aargs)
            action = keys.get("action", "")
            takes = not (ftype.strip() == "bool" or re.search(r"Count|SetTrue|SetFalse|Help|Version", action))
            named = False
            if "long" in keys:
                cmd.longs[_unquote(keys["long"]) if keys["long"] else kebab(fname)] = takes
                named = True
            if "short" in keys:
                cmd.shorts[_unquote(keys["short"]) if keys["short"] else fname[0]] = takes
                named = True
            for k, v in aargs:
                if k in ("alias", "visible_alias"):
                    cmd.longs[_unquote(v)] = takes
                elif k in ("aliases", "visible_aliases"):
                    for a in re.findall(r'"([^"]+)"', v):
                        cmd.longs[a] = takes
            if keys.get("global") == "true":
                if "long" in keys:
                    cmd.globals.add(("--", _unquote(keys["long"]) if keys["long"] else kebab(fname)))
                if "short" in keys:
                    cmd.globals.add(("-", _unquote(keys["short"]) if keys["short"] else fname[0]))
            if not named:
                cmd.positional = True

    def _fill_from_struct(self, cmd: Cmd, name: str, seen) -> None:
        if name not in self.items or name in seen:
            return
        kind, _, _, body = self.items[name]
        if kind == "struct":
            self._fill_fields(cmd, self._fields(body), seen + [name])
        else:
            self._fill_subs(cmd, name, seen)

    def _fill_subs(self, cmd: Cmd, enum: str, seen) -> None:
        if enum not in self.items or enum in seen:
            return
        _, _, _, body = self.items[enum]
        for attrs, vname, kind, inner in self._variants(body):
            cargs = [_kv(a) for a in _attr_args(attrs, "command", "clap")]
            keys = dict(cargs)
            sub = Cmd(_unquote(keys["name"]) if keys.get("name") else kebab(vname))
            if kind == "struct":
                self._fill_fields(sub, self._fields(inner), seen + [enum])
            elif kind == "tuple":
                self._fill_from_struct(sub, _base_type(inner), seen + [enum])
            sub.add_help()
            if sub.subs:
                sub.subs.setdefault("help", Cmd("help", positional=True))
            cmd.subs[sub.name] = sub
            for k, v in cargs:
                if k in ("alias", "visible_alias"):
                    cmd.subs[_unquote(v)] = sub
        cmd.subs.setdefault("help", Cmd("help", positional=True))

    def _propagate(self, cmd: Cmd, glongs: dict, gshorts: dict) -> None:
        for kind, name in cmd.globals:
            if kind == "--":
                glongs = {**glongs, name: cmd.longs[name]}
            else:
                gshorts = {**gshorts, name: cmd.shorts[name]}
        for k, v in glongs.items():
            cmd.longs.setdefault(k, v)
        for k, v in gshorts.items():
            cmd.shorts.setdefault(k, v)
        for sub in {id(s): s for s in cmd.subs.values()}.values():
            self._propagate(sub, glongs, gshorts)


def parse_help(text: str) -> Cmd:
    """A command's flags, subcommands and positionals from clap's `--help` output."""
    cmd = Cmd("")
    section = ""
    for line in text.splitlines():
        head = re.match(r"^([A-Z][A-Za-z ]*):\s*$", line)
        if head:
            section = head.group(1).lower()
            continue
        opt = re.match(r"^ {2,6}(?:-([A-Za-z0-9])(?:,\s*|\s+|$))?(?:--([A-Za-z0-9][A-Za-z0-9-]*))?(.*)$", line)
        if opt and (opt.group(1) or opt.group(2)) and line.lstrip().startswith("-"):
            rest = opt.group(3) or ""
            takes = bool(re.match(r"^(?:[ =]\[?<|\s*<)", rest))
            if opt.group(2):
                cmd.longs[opt.group(2)] = takes
            if opt.group(1):
                cmd.shorts[opt.group(1)] = takes
            continue
        ent = re.match(r"^ {2}(?! )(\S+)", line)
        if ent and section == "commands":
            cmd.subs[ent.group(1).rstrip(",")] = None  # filled on demand
        elif ent and section == "arguments":
            cmd.positional = True
    return cmd


class HelpModel:
    """The command tree read lazily from `PROGRAM ... --help`."""

    def __init__(self, program: str):
        self.program = program
        self.cache = {}

    def get(self, path: tuple):
        if path not in self.cache:
            env = dict(os.environ, NO_COLOR="1", TERM="dumb", COLUMNS="200")
            try:
                p = subprocess.run([self.program, *path, "--help"], capture_output=True, text=True,
                                   timeout=60, env=env, stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise SystemExit(f"check_docs: cannot run {self.program}: {e}")
            if p.returncode != 0 and not path:
                raise SystemExit(f"check_docs: `{self.program} --help` failed: {p.stderr.strip()}")
            if p.returncode != 0:
                self.cache[path] = None
            else:
                c = parse_help(p.stdout)
                c.name = path[-1] if path else Path(self.program).name
                c.add_help()
                self.cache[path] = c
        return self.cache[path]


class SourceModel:
    """The command tree from the clap source."""

    def __init__(self, root: Cmd):
        self.root = root

    def get(self, path: tuple):
        c = self.root
        for p in path:
            c = c.subs.get(p) if c else None
        return c


def check_invocation(model, tokens: list, label: str) -> list:
    """Problems with one invocation: `tokens` are what follows the program name."""
    problems = []
    path: tuple = ()
    cmd = model.get(path)
    i = 0
    resolving = True

    def check_flag(tok: str, cmd: Cmd) -> bool:
        """Reports an unknown flag; returns whether it takes a value (to skip it)."""
        if tok.startswith("--"):
            name = tok[2:].split("=", 1)[0]
            if not re.match(r"^[A-Za-z][A-Za-z0-9-]*$", name):
                return False
            if name not in cmd.longs:
                where = " ".join((label,) + path)
                problems.append(f"`{where}` has no option --{name}")
                return False
            return cmd.longs[name] and "=" not in tok
        letters = tok[1:]
        if not re.match(r"^[A-Za-z]+$", letters):
            return False  # -0.5, -, a placeholder
        for ch in letters:
            if ch not in cmd.shorts:
                where = " ".join((label,) + path)
                problems.append(f"`{where}` has no option -{ch}")
                return False
        return cmd.shorts[letters[-1]] and len(letters) == 1

    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok.startswith("-") and len(tok) > 1:
            if check_flag(tok, cmd) and i < len(tokens):
                i += 1  # its value
            continue
        if not resolving:
            continue
        if cmd.subs and WORD.match(tok):
            if tok in cmd.subs:
                if tok == "help":  # clap's own: `help <command>` takes command names
                    return problems
                path = path + (tok,)
                nxt = model.get(path)
                if nxt is None:
                    problems.append(f"`{' '.join((label,) + path)}` cannot be read (its --help failed)")
                    return problems
                cmd = nxt
                continue
            if not cmd.positional:
                problems.append(f"`{' '.join((label,) + path)}` has no subcommand `{tok}`")
                return problems
        resolving = False
    return problems


# ---------------------------------------------------------------------------------------------
# Markdown: code blocks, inline code, links, headings.
# ---------------------------------------------------------------------------------------------

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")


def split_markdown(text: str):
    """(fenced blocks as (first line number, language, lines), the text with every fenced line
    blanked so that line numbers stay)."""
    blocks, masked, cur = [], [], None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if cur is None and m:
            cur = (n + 1, m.group(3).lower(), [], m.group(2))
            masked.append("")
        elif cur is not None and m and m.group(2).startswith(cur[3]) and not m.group(3):
            blocks.append(cur[:3])
            cur = None
            masked.append("")
        elif cur is not None:
            cur[2].append(line)
            masked.append("")
        else:
            masked.append(line)
    if cur is not None:
        blocks.append(cur[:3])
    return blocks, "\n".join(masked)


INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def inline_spans(masked: str):
    """(line number, content) of each inline code span (within a paragraph)."""
    for m in INLINE.finditer(masked):
        body = m.group(2)
        if "\n\n" in body:
            continue
        yield masked.count("\n", 0, m.start()) + 1, body


def without_code(masked: str) -> str:
    """The text with inline code blanked (newlines kept), for finding links."""
    def blank(m):
        s = m.group(0)
        return s if "\n\n" in s else re.sub(r"[^\n]", " ", s)
    return INLINE.sub(blank, masked)


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading text."""
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links -> their text
    h = re.sub(r"<[^>]+>", "", h)
    h = h.strip().lower()
    keep = []
    for ch in h:
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LNM":
            keep.append(ch)
    return "".join(keep).replace(" ", "-")


def anchors_of(text: str) -> set:
    _, masked = split_markdown(text)
    seen, out = {}, set()
    for line in masked.split("\n"):
        m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            k = seen.get(s, 0)
            out.add(s if k == 0 else f"{s}-{k}")
            seen[s] = k + 1
    out |= set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return out


# ---------------------------------------------------------------------------------------------
# Finding invocations and paths in code.
# ---------------------------------------------------------------------------------------------

def _shell_tokens(line: str) -> list:
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        lex.commenters = "#"
        return list(lex)
    except ValueError:
        return line.split()


def invocations(tokens: list):
    """(kind, label, rest) for each vidya or xtask invocation in a list of tokens (one shell
    segment or an inline span): kind 'vidya' or 'xtask'."""
    for i, t in enumerate(tokens):
        base = t.replace("\\", "/").rsplit("/", 1)[-1]
        if base in VIDYA_NAMES:
            yield "vidya", t, tokens[i + 1:]
            return
        if t == "cargo" and i + 1 < len(tokens):
            if tokens[i + 1] == "xtask":
                yield "xtask", "cargo xtask", tokens[i + 2:]
                return
            if tokens[i + 1] == "run" and "--" in tokens[i + 2:]:
                j = tokens.index("--", i + 2)
                pkg = tokens[i + 2:j]
                if "vidya-cli" in pkg or "--bin=vidya" in pkg or ("--bin" in pkg and "vidya" in pkg):
                    yield "vidya", "vidya", tokens[j + 1:]
                    return


def shell_commands(lines: list, first_line: int, lang: str):
    """(line number, tokens) of each command segment of a shell block."""
    i = 0
    while i < len(lines):
        start = i
        text = lines[i]
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            text = text.rstrip()[:-1] + " " + lines[i + 1]
            i += 1
        i += 1
        stripped = text.strip()
        if lang == "console":
            if not stripped.startswith(("$ ", "# ", "> ")):
                continue
            stripped = stripped[2:]
        elif stripped.startswith("$ "):
            stripped = stripped[2:]
        seg = []
        for tok in _shell_tokens(stripped) + [";"]:
            if tok and set(tok) <= set(";&|"):
                if seg:
                    yield first_line + start, seg
                seg = []
            else:
                seg.append(tok)


PATH_TOKEN = re.compile(r"^(?:\./)?((?:%s)/\S*|target/\S*|target)$" % "|".join(re.escape(t) for t in KNOWN_TOP))


def _path_of(token: str):
    """The repository path a token names (None when it names none)."""
    tok = token.strip("`'\"()[],;:!?*")
    tok = re.sub(r"^[@=]", "", tok)
    if "=" in tok and tok.startswith("-"):
        tok = tok.split("=", 1)[1]
    tok = tok.rstrip(".")
    m = PATH_TOKEN.match(tok)
    return m.group(1) if m else None


def _is_repo_path(token: str) -> bool:
    return _path_of(token) is not None


def repo_path_problem(token: str):
    """A message when `token` names a repository path that does not exist (None otherwise, and
    for tokens that are not repository paths)."""
    rel = _path_of(token)
    if rel is None:
        return None
    if "://" in rel:
        return None
    if any(rel == g or rel.startswith(g + "/") for g in GENERATED):
        return None
    pattern = re.sub(r"<[^>]*>", "*", rel).replace("…", "*")
    if any(ch in pattern for ch in "*?["):
        if glob.glob(str(REPO / pattern)):
            return None
        return f"no file matches `{rel}`"
    if (REPO / pattern).exists():
        return None
    return f"`{rel}` does not exist"


# ---------------------------------------------------------------------------------------------
# Checking one file.
# ---------------------------------------------------------------------------------------------

class Checker:
    def __init__(self, vidya_model, xtask_model):
        self.models = {"vidya": vidya_model, "xtask": xtask_model}
        self.anchor_cache = {}
        self.counts = {"commands": 0, "paths": 0, "links": 0}

    def anchors(self, path: Path) -> set:
        if path not in self.anchor_cache:
            self.anchor_cache[path] = anchors_of(path.read_text(encoding="utf-8"))
        return self.anchor_cache[path]

    def path_problem(self, token: str):
        msg = repo_path_problem(token)
        if msg is not None or _is_repo_path(token):
            self.counts["paths"] += 1
        return msg

    def check_text(self, text: str, path: Path) -> list:
        """Problems as (line, message)."""
        problems = []
        blocks, masked = split_markdown(text)

        def run_invocations(line, tokens):
            for kind, label, rest in invocations(tokens):
                self.counts["commands"] += 1
                for msg in check_invocation(self.models[kind], rest, "vidya" if kind == "vidya" else label):
                    problems.append((line, msg))

        # Shell blocks: commands and paths.
        for first, lang, lines in blocks:
            if lang not in SHELL_LANGS:
                continue
            for line, tokens in shell_commands(lines, first, lang):
                while tokens and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", tokens[0]):
                    p = self.path_problem(tokens[0].split("=", 1)[1])
                    if p:
                        problems.append((line, p))
                    tokens = tokens[1:]
                run_invocations(line, tokens)
                for t in tokens:
                    p = self.path_problem(t)
                    if p:
                        problems.append((line, p))

        # Inline code: commands (at the start of a span) and paths.
        for line, body in inline_spans(masked):
            body = body.replace("\\|", "|")
            words = body.split()
            while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                words = words[1:]
            cleaned = [w.strip("[]()") if w.startswith(("[", "(")) or w.endswith(("]", ")")) else w for w in words]
            cleaned = [w.split("|")[0] if w.startswith("-") else w for w in cleaned]
            if cleaned:
                first = cleaned[0].replace("\\", "/").rsplit("/", 1)[-1]
                if first in VIDYA_NAMES or cleaned[:2] == ["cargo", "xtask"] or cleaned[:2] == ["cargo", "run"]:
                    run_invocations(line, [w for w in cleaned if w])
            for w in words:
                p = self.path_problem(w)
                if p:
                    problems.append((line, p))

        # Links and reference definitions.
        plain = without_code(masked)
        targets = [(plain.count("\n", 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(plain)]
        targets += [(plain.count("\n", 0, m.start()) + 1, m.group(1)) for m in REFDEF.finditer(plain)]
        for line, target in targets:
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                self.counts["links"] += 1
            msg = self.link_problem(target, path, text)
            if msg:
                problems.append((line, msg))
        return sorted(set(problems))

    def link_problem(self, target: str, path: Path, text: str):
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            return None  # http:, https:, mailto:, ...
        file_part, _, anchor = target.partition("#")
        file_part = urllib.parse.unquote(file_part)
        if file_part:
            dest = (path.parent / file_part).resolve()
            try:
                rel = dest.relative_to(REPO).as_posix()
            except ValueError:
                rel = None
            if rel is not None and any(rel == g or rel.startswith(g + "/") for g in GENERATED):
                return None
            if not dest.exists():
                return f"link to `{target}`: no such file or folder"
            if not anchor:
                return None
            if dest.suffix.lower() != ".md" or not dest.is_file():
                return None
            anchors = self.anchors(dest)
        else:
            anchors = anchors_of(text)
        if anchor and urllib.parse.unquote(anchor) not in anchors:
            return f"link to `{target}`: no heading with the anchor #{anchor}"
        return None


def default_files() -> list:
    files = [REPO / "README.md"] + sorted((REPO / "docs").glob("**/*.md"))
    return [f for f in files if f.is_file()]


def build_checker(vidya: str | None) -> Checker:
    cli_files = sorted((REPO / "crates" / "vidya-cli" / "src").glob("**/*.rs"))
    vidya_model = HelpModel(vidya) if vidya else SourceModel(ClapSource(cli_files).root())
    xtask_model = SourceModel(ClapSource([REPO / "xtask" / "src" / "main.rs"]).root())
    return Checker(vidya_model, xtask_model)


# ---------------------------------------------------------------------------------------------
# Self-test: the checker must report every planted mistake and nothing on correct lines.
# ---------------------------------------------------------------------------------------------

SELF_TEST_DOC = """\
# Self test

## A heading

Good: `vidya ask --json --trace what is ATP`, `vidya --library L serve --classroom --port 8765`,
`vidya conversations show 3`, `vidya bench latency --from LIB --work DIR --chunks 10`,
`cargo xtask setup --models`, `cargo xtask test`, `crates/vidya-core/src/lib.rs`,
`target/nothing/here`, `resources/models/anything`, `crates/vidya-cli/src/*_cmd.rs`,
[good anchor](#a-heading), [good file](../README.md), [good folder](../crates/).

Bad subcommand: `vidya frobnicate --json`.
Bad flag: `vidya ask --no-such-flag what is ATP`.
Bad path: `crates/vidya-core/src/no_such_file.rs`.
Bad link: [missing](no-such-guide.md).
Bad anchor: [nowhere](#no-such-heading).
Bad xtask: `cargo xtask nosuchcmd`.

```sh
target/debug/vidya --library L books --jsonn      # bad flag in a block
cargo xtask setup --no-such-xtask-flag             # bad xtask flag
vidya -vv ingest tests/no-such-folder/book.pdf     # bad path in a block
```
"""

SELF_TEST_EXPECTED = [
    (11, "has no subcommand `frobnicate`"),
    (12, "has no option --no-such-flag"),
    (13, "`crates/vidya-core/src/no_such_file.rs` does not exist"),
    (14, "link to `no-such-guide.md`"),
    (15, "#no-such-heading"),
    (16, "has no subcommand `nosuchcmd`"),
    (19, "has no option --jsonn"),
    (20, "has no option --no-such-xtask-flag"),
    (21, "`tests/no-such-folder/book.pdf` does not exist"),
]

CANNED_HELP = """\
Add textbooks

Usage: vidya ingest [OPTIONS] <PATHS>...

Arguments:
  <PATHS>...  Files or folders

Options:
      --library <PATH>  Library folder (default: the per-user data folder) [env: VIDYA_LIBRARY=]
      --title <TITLE>   Book title
  -v, --verbose...      More log output on stderr (-v info, -vv debug, -vvv trace)
      --no-embed
          Store the book for word search (BM25) only, without dense vectors (faster; add them
          later with `vidya reindex --force`)
  -h, --help            Print help

Commands:
  list    List conversations
  show    Show the turns
"""


def self_test(vidya: str | None) -> int:
    failures = []
    checker = build_checker(vidya)
    found = checker.check_text(SELF_TEST_DOC, REPO / "docs" / "__self_test__.md")
    for line, needle in SELF_TEST_EXPECTED:
        if not any(l == line and needle in m for l, m in found):
            failures.append(f"not reported: line {line}: {needle}")
    expected_lines = {l for l, _ in SELF_TEST_EXPECTED}
    for line, msg in found:
        if line not in expected_lines:
            failures.append(f"reported on a correct line: {line}: {msg}")
    help_cmd = parse_help(CANNED_HELP)
    want = {"library": True, "title": True, "verbose": False, "no-embed": False, "help": False}
    if help_cmd.longs != want:
        failures.append(f"--help parsing: flags {help_cmd.longs}, expected {want}")
    if help_cmd.shorts != {"v": False, "h": False} or not help_cmd.positional:
        failures.append(f"--help parsing: shorts {help_cmd.shorts}, positional {help_cmd.positional}")
    if set(help_cmd.subs) != {"list", "show"}:
        failures.append(f"--help parsing: subcommands {sorted(help_cmd.subs)}")
    if slug("The HTTP API (`vidya serve`)") != "the-http-api-vidya-serve" or \
            slug("Vidya — an offline textbook tutor") != "vidya--an-offline-textbook-tutor":
        failures.append("slugs differ from GitHub's")
    for f in failures:
        print(f"self-test: {f}")
    if failures:
        return 1
    print(f"self-test: ok ({len(SELF_TEST_EXPECTED)} planted mistakes reported, none on correct lines)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md and docs/**/*.md)")
    ap.add_argument("--vidya", metavar="PATH", help="read vidya's subcommands and flags from `PATH <cmd> --help`")
    ap.add_argument("--self-test", action="store_true", help="check that planted mistakes are reported")
    args = ap.parse_args(argv)
    vidya = None
    if args.vidya:
        vidya = args.vidya
        if os.sep in vidya or "/" in vidya:  # a path: from here, else from the repository root
            here = Path(vidya).resolve()
            vidya = str(here if here.exists() or not (REPO / vidya).exists() else REPO / vidya)
    if args.self_test:
        return self_test(vidya)
    checker = build_checker(vidya)
    files = [f.resolve() for f in args.files] or default_files()
    count = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        try:
            shown = f.relative_to(REPO).as_posix()
        except ValueError:
            shown = str(f)
        for line, msg in checker.check_text(text, f):
            print(f"{shown}:{line}: {msg}")
            count += 1
    if count:
        print(f"check_docs: {count} problem(s) in {len(files)} file(s)", file=sys.stderr)
        return 1
    c = checker.counts
    print(f"check_docs: {len(files)} file(s), {c['commands']} commands, {c['paths']} paths and "
          f"{c['links']} links checked, no problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
