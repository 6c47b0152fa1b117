#!/usr/bin/env python3
"""Writes two ONNX cross-encoders for testing Vidya's reranker stage (no registry carries real
cross-encoder weights, see resources/manifest.toml `[reranker]`).

Both follow the interface of a sentence-transformers CrossEncoder exported to ONNX, as
cross-encoder/ms-marco-MiniLM-L-6-v2 is (Nogueira & Cho 2019, "Passage Re-ranking with BERT"):
inputs `input_ids`, `attention_mask`, `token_type_ids` (int64 [batch, seq]) for pairs encoded as
`[CLS] query [SEP] passage [SEP]` (token type 0 for the query part, 1 for the passage part);
output `logits` (float32 [batch, 1]), one relevance logit per pair, higher = more relevant.

Each folder gets `model.onnx`, `tokenizer.json` (the BERT uncased WordPiece tokenizer given with
--tokenizer, copied byte for byte: its own 128-token truncation and fixed padding stay in it, the
Rust side must override them) and `vidya-reranker.toml`.

* `overlap/`: a tiny, meaningful graph for plumbing tests. logit = the number of distinct token
  ids of the passage part (token type 1, mask 1, not a special token such as [CLS], [SEP],
  [PAD], [UNK], [MASK]) that also occur in the query part (token type 0, mask 1, not special),
  computed with Equal on broadcast ids, masks, ReduceMax, ReduceSum and Cast. A token repeated
  in the passage counts once. `max_length = 64`, so truncation of long passages is observable.
* `minilm-shape/`: a BERT cross-encoder with the shape of ms-marco-MiniLM-L-6-v2 (6 layers,
  hidden 384, 12 heads, intermediate 1536, 512 positions, vocabulary 30522, two token types,
  pooler dense+tanh on [CLS], classifier 384 -> 1) with seeded random weights, for latency
  measurements only (its scores mean nothing). The encoder graph is the one
  `e5_small_onnx.graph` builds; it is then dynamically quantised to int8 (per-channel weights)
  with onnxruntime.quantization, like the e5 embedder. `max_length = 512`.

usage: test_cross_encoders.py --tokenizer PATH/tokenizer.json --out DIR
writes DIR/overlap/ and DIR/minilm-shape/; the output is deterministic for given inputs and
pinned package versions.
needs: numpy, onnx, onnxruntime (only for the int8 quantisation)
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh
from onnx import numpy_helper as onh

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e5_small_onnx  # noqa: E402  (same folder: the BERT encoder graph builder)

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 18
SEED = 20190404  # arXiv:1901.04085 (Nogueira & Cho), as a fixed seed

MINILM = dict(hidden=384, layers=6, heads=12, ffn=1536, vocab=30522, max_pos=512, type_vocab=2,
              eps=1e-12)


def io_infos(output_dim):
    inputs = [oh.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
              for name in INPUTS]
    outputs = [oh.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", output_dim])]
    return inputs, outputs


def finish(nodes, inits, name, output_dim=1):
    inputs, outputs = io_infos(output_dim)
    model = oh.make_model(oh.make_graph(nodes, name, inputs, outputs, inits),
                          opset_imports=[oh.make_opsetid("", OPSET)], producer_name="vidya-xtask")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def special_ids(tokenizer_json):
    """Ids of the tokenizer's special tokens ([PAD], [UNK], [CLS], [SEP], [MASK] for BERT)."""
    tok = json.load(open(tokenizer_json, encoding="utf-8"))
    ids = sorted(t["id"] for t in tok.get("added_tokens", []) if t.get("special"))
    vocab = tok.get("model", {}).get("vocab", {})
    for name in ("[CLS]", "[SEP]", "[PAD]"):
        if name not in vocab or vocab[name] not in ids:
            sys.exit(f"{tokenizer_json}: not a BERT WordPiece tokenizer (no special token {name})")
    return ids


def overlap_graph(specials):
    """logit[b] = |{distinct passage ids} ∩ {query ids}|, special tokens and padding excluded."""
    inits, nodes, n = [], [], [0]

    def const(name, value, dtype):
        inits.append(onh.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(kind, inputs, **attrs):
        n[0] += 1
        out = f"{kind.lower()}_{n[0]}"
        nodes.append(oh.make_node(kind, inputs, [out], name=out, **attrs))
        return out

    const("specials", specials, np.int64)
    const("axes0", [0], np.int64)
    const("axes1", [1], np.int64)
    const("axes2", [2], np.int64)
    const("zero", 0, np.int64)
    const("one", 1, np.int64)
    const("onef", 1.0, np.float32)

    def f(x):
        return op("Cast", [x], to=TensorProto.FLOAT)

    ids_col = op("Unsqueeze", ["input_ids", "axes2"])  # [b, s, 1]: position j
    ids_row = op("Unsqueeze", ["input_ids", "axes1"])  # [b, 1, s]: position i
    is_special = op("ReduceMax", [f(op("Equal", [ids_col, "specials"])), "axes2"], keepdims=0)
    plain = op("Mul", [f("attention_mask"), op("Sub", ["onef", is_special])])  # [b, s]
    passage_part = f("token_type_ids")
    query_ok = op("Mul", [plain, op("Sub", ["onef", passage_part])])  # [b, s]
    passage_ok = op("Mul", [plain, passage_part])  # [b, s]

    same = f(op("Equal", [ids_col, ids_row]))  # [b, s, s]: same[b, j, i] = ids[j] == ids[i]
    # in_query[b, j]: the token at j also occurs in the query part.
    in_query = op("ReduceMax", [op("Mul", [same, op("Unsqueeze", [query_ok, "axes1"])]), "axes2"],
                  keepdims=0)
    # seen_before[b, j]: the same id already occurs in the passage part at some i < j.
    seq = op("Gather", [op("Shape", ["input_ids"]), "one"])
    pos = op("Range", ["zero", seq, "one"])
    earlier = f(op("Less", [op("Unsqueeze", [pos, "axes0"]), op("Unsqueeze", [pos, "axes1"])]))
    seen_before = op("ReduceMax", [op("Mul", [op("Mul", [same, op("Unsqueeze", [passage_ok, "axes1"])]),
                                              earlier]), "axes2"], keepdims=0)
    counted = op("Mul", [op("Mul", [in_query, passage_ok]), op("Sub", ["onef", seen_before])])
    nodes.append(oh.make_node("ReduceSum", [counted, "axes1"], ["logits"], keepdims=1))
    return finish(nodes, inits, "vidya-test-overlap-cross-encoder")


def minilm_weights(cfg, rng):
    """Seeded random weights in e5_small_onnx's layout (dense weights stored [out, in])."""
    H, F = cfg["hidden"], cfg["ffn"]

    def normal(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)).astype(np.float32)

    w = {
        "word": normal(cfg["vocab"], H),
        "pos": normal(cfg["max_pos"], H),
        "type": normal(cfg["type_vocab"], H),
        "emb_ln_w": np.ones(H, np.float32),
        "emb_ln_b": np.zeros(H, np.float32),
    }
    shapes = {"q": (H, H), "k": (H, H), "v": (H, H), "ao": (H, H), "fi": (F, H), "fo": (H, F)}
    for l in range(cfg["layers"]):
        for part, (rows, cols) in shapes.items():
            w[f"l{l}.{part}.w"] = normal(rows, cols)
            w[f"l{l}.{part}.b"] = np.zeros(rows, np.float32)
        for ln in ("aln", "oln"):
            w[f"l{l}.{ln}.w"] = np.ones(H, np.float32)
            w[f"l{l}.{ln}.b"] = np.zeros(H, np.float32)
    w["pooler.w"] = normal(H, H)
    w["pooler.b"] = np.zeros(H, np.float32)
    w["classifier.w"] = normal(H, 1)
    w["classifier.b"] = np.zeros(1, np.float32)
    return w


def minilm_graph():
    """BERT encoder (from e5_small_onnx.graph) + BertForSequenceClassification's head."""
    cfg = MINILM
    w = minilm_weights(cfg, np.random.default_rng(SEED))
    encoder = e5_small_onnx.graph(cfg, w)
    encoder = onnx.utils.Extractor(encoder).extract_model(list(INPUTS), ["last_hidden_state"])
    g = encoder.graph
    inits = [onh.from_array(np.asarray(0, np.int64), "cls_index")]  # scalar: drops the axis
    for name in ("pooler.w", "pooler.b", "classifier.w", "classifier.b"):
        inits.append(onh.from_array(w[name], name))
    nodes = [
        oh.make_node("Gather", ["last_hidden_state", "cls_index"], ["cls_hidden"], axis=1),
        oh.make_node("MatMul", ["cls_hidden", "pooler.w"], ["pooler_mm"]),
        oh.make_node("Add", ["pooler_mm", "pooler.b"], ["pooler_pre"]),
        oh.make_node("Tanh", ["pooler_pre"], ["pooled"]),
        oh.make_node("MatMul", ["pooled", "classifier.w"], ["classifier_mm"]),
        oh.make_node("Add", ["classifier_mm", "classifier.b"], ["logits"]),
    ]
    # The head's names (dotted, or cls_*/pooler*/classifier*) differ from the encoder's.
    return finish(list(g.node) + nodes, list(g.initializer) + inits,
                  "vidya-test-minilm-shape-cross-encoder")


def write_folder(out, name, tokenizer, max_length, note):
    """Creates OUT/NAME with tokenizer.json and vidya-reranker.toml; returns the folder."""
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(tokenizer, os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "vidya-reranker.toml"), "w", encoding="utf-8", newline="\n") as f:
        f.write(f"# {note}\n# Written by xtask/models/test_cross_encoders.py.\n")
        f.write(f"max_length = {max_length}\n")
    return folder


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokenizer", required=True, help="BERT uncased WordPiece tokenizer.json")
    ap.add_argument("--out", required=True, help="output folder")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    specials = special_ids(args.tokenizer)
    folder = write_folder(args.out, "overlap", args.tokenizer, 64,
                          "Test graph: logit = distinct passage tokens also in the query.")
    onnx.save(overlap_graph(specials), os.path.join(folder, "model.onnx"))
    print(f"overlap: special ids {specials} -> {folder}")

    folder = write_folder(args.out, "minilm-shape", args.tokenizer, 512,
                          "Test graph: ms-marco-MiniLM-L-6-v2 shape, random weights, int8 "
                          "(latency only).")
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = os.path.join(tmp, "model_fp32.onnx")
        onnx.save(minilm_graph(), fp32)
        import logging
        # onnxruntime's advice to pre-process before quantizing is for its own tooling; it would
        # only worry a teacher reading the setup output.
        logging.getLogger().setLevel(logging.ERROR)
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(fp32, os.path.join(folder, "model.onnx"), weight_type=QuantType.QInt8,
                         per_channel=True)
    print(f"minilm-shape: 6 layers, hidden 384, vocabulary 30522, int8 -> {folder}")


if __name__ == "__main__":
    main()
