// An Ollama-compatible HTTP server over prebuilt llama.cpp (node-llama-cpp), so that Vidya's
// tests and `vidya eval --answers` talk to a real language model with no Ollama installed.
//
// It implements the routes of Ollama's REST API (docs/api.md of the ollama repository) that
// Vidya calls, with Ollama's shapes:
//   GET  /              "Ollama is running"
//   GET  /api/version   {"version"}
//   GET  /api/tags      {"models": [{"name", "model", "size", "digest", "details"}]}
//   POST /api/show      {"details", "model_info", ...}; 404 {"error"} for another model
//   POST /api/chat      {"model", "messages", "stream"?, "options"?: {"num_ctx", "temperature",
//                        "num_predict", "seed", "top_k", "top_p", "repeat_penalty",
//                        "repeat_last_n"}}: NDJSON lines (repeat_penalty 1.1 over the last
//                        64 tokens when not given, Ollama's defaults)
//                        {"model","created_at","message":{"role":"assistant","content"},"done":false}
//                        then one line with "done": true, "done_reason" ("stop" | "length"),
//                        "prompt_eval_count", "eval_count" and durations in nanoseconds;
//                        with "stream": false one object holding the whole answer.
// One model (the GGUF given with --model), --parallel N generations at a time (default 1;
// further requests queue, as Ollama does with OLLAMA_NUM_PARALLEL=N): each has its own context
// sequence of one shared context (llama.cpp batches the sequences' tokens together), reused
// between requests, so a prompt that starts like that sequence's previous one (the same
// system prompt) is not evaluated again.
// A client that disconnects stops its generation.
//
// Usage: node server.mjs --model FILE.gguf [--name qwen2.5-coder:0.5b] [--host 127.0.0.1]
//        [--port 11434] [--threads 2] [--ctx 4096] [--parallel 1] [--response-prefix TEXT]
// --ctx is per sequence (the context holds --parallel × --ctx tokens).
// --port 0 takes a free port. --response-prefix makes every answer start with TEXT, which the
// model then continues (llama.cpp evaluates it as the start of its own reply): the real-model
// tests use it to reproduce a misbehaviour seen in real use (an answer that opens with a line
// of the prompt's rules) and check Vidya's handling on the real continuation.
// Prints "listening on http://HOST:PORT" when ready. Only loopback addresses are accepted for
// --host: the server has no authentication and is meant for tests on this machine.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { getLlama, LlamaChatSession } from "node-llama-cpp";

const { values: args } = parseArgs({
  options: {
    model: { type: "string" },
    name: { type: "string", default: "qwen2.5-coder:0.5b" },
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "11434" },
    threads: { type: "string", default: "2" },
    ctx: { type: "string", default: "4096" },
    parallel: { type: "string", default: "1" },
    "response-prefix": { type: "string", default: "" },
  },
});

function fail(message) {
  process.stderr.write(`vidya-llm-server: ${message}\n`);
  process.exit(2);
}

if (!args.model) fail("--model FILE.gguf is required");
if (!fs.existsSync(args.model)) fail(`no model file at ${args.model} (run: cargo xtask setup --test-llm)`);
if (!["127.0.0.1", "::1", "localhost"].includes(args.host)) fail("--host must be a loopback address");

const modelPath = path.resolve(args.model);
const modelSize = fs.statSync(modelPath).size;
const threads = Number(args.threads) || 2;
const contextSize = Number(args.ctx) || 4096;

const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const model = await llama.loadModel({ modelPath });
const parallel = Math.max(1, Math.min(8, Number(args.parallel) || 1));
const context = await model.createContext({ contextSize: contextSize * parallel, sequences: parallel, threads });
// One chat session per sequence; a request takes a free one.
const free = [];
for (let i = 0; i < parallel; i++) {
  const sequence = context.getSequence();
  free.push({ sequence, session: new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false }) });
}

const details = {
  format: "gguf",
  family: model.fileInfo?.metadata?.general?.architecture ?? "unknown",
  parameter_size: model.fileInfo?.metadata?.general?.size_label ?? "",
  quantization_level: String(model.fileInfo?.metadata?.general?.file_type ?? ""),
};

function sameModel(requested) {
  if (typeof requested !== "string") return false;
  const strip = (n) => (n.includes(":") ? n : `${n}:latest`);
  return strip(requested) === strip(args.name);
}

function send(res, status, body) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, {
    "Content-Type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json; charset=utf-8",
  });
  res.end(text);
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > 8 * 1024 * 1024) {
        reject(new Error("request body over 8 MB"));
        req.destroy();
      } else parts.push(c);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString("utf8") || "{}"));
      } catch (e) {
        reject(new Error(`invalid JSON: ${e.message}`));
      }
    });
    req.on("error", reject);
  });
}

// At most `parallel` generations at once: a request waits for a free sequence, in order.
const waiters = [];
async function withSequence(job) {
  const slot = free.length > 0 ? free.shift() : await new Promise((resolve) => waiters.push(resolve));
  try {
    return await job(slot);
  } finally {
    const next = waiters.shift();
    if (next) next(slot);
    else free.push(slot);
  }
}

function toHistory(messages) {
  // node-llama-cpp's chat history: system, user and model items; the last user message is the
  // prompt.
  const history = [];
  for (const m of messages.slice(0, -1)) {
    const text = String(m.content ?? "");
    if (m.role === "system") history.push({ type: "system", text });
    else if (m.role === "assistant") history.push({ type: "model", response: [text] });
    else history.push({ type: "user", text });
  }
  return history;
}

async function chat(req, res) {
  let body;
  try {
    body = await readJson(req);
  } catch (e) {
    return send(res, 400, { error: e.message });
  }
  if (!sameModel(body.model)) {
    return send(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  if (!last || last.role !== "user") {
    return send(res, 400, { error: "messages must end with a user message" });
  }
  const options = body.options ?? {};
  const stream = body.stream !== false;
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const started = process.hrtime.bigint();
  const created = () => new Date().toISOString();
  await withSequence(async ({ sequence, session }) => {
    if (abort.signal.aborted) return;
    const before = { input: sequence.tokenMeter.usedInputTokens };
    let firstAt = null;
    let text = "";
    if (stream) res.writeHead(200, { "Content-Type": "application/x-ndjson" });
    session.setChatHistory(toHistory(messages));
    const maxTokens = Number.isInteger(options.num_predict) && options.num_predict > 0 ? options.num_predict : undefined;
    let meta;
    try {
      // The prefix comes back through onTextChunk like the rest of the reply.
      meta = await session.promptWithMeta(String(last.content ?? ""), {
        responsePrefix: args["response-prefix"] || undefined,
        maxTokens,
        temperature: typeof options.temperature === "number" ? options.temperature : 0.8,
        seed: Number.isInteger(options.seed) ? options.seed : 42,
        topK: Number.isInteger(options.top_k) ? options.top_k : 40,
        topP: typeof options.top_p === "number" ? options.top_p : 0.9,
        repeatPenalty: {
          penalty: typeof options.repeat_penalty === "number" ? options.repeat_penalty : 1.1,
          lastTokens: Number.isInteger(options.repeat_last_n) ? options.repeat_last_n : 64,
        },
        signal: abort.signal,
        stopOnAbortSignal: true,
        onTextChunk(piece) {
          if (!piece) return;
          firstAt ??= process.hrtime.bigint();
          text += piece;
          if (stream) {
            res.write(JSON.stringify({ model: args.name, created_at: created(), message: { role: "assistant", content: piece }, done: false }) + "\n");
          }
        },
      });
    } catch (e) {
      if (abort.signal.aborted) return;
      const error = { error: `generation failed: ${e.message}` };
      if (stream) res.end(JSON.stringify(error) + "\n");
      else send(res, 500, error);
      return;
    }
    if (abort.signal.aborted) return;
    const ended = process.hrtime.bigint();
    const promptEval = sequence.tokenMeter.usedInputTokens - before.input;
    // Tokens of the answer itself (the token meter also counts tokens the chat template adds).
    const evalCount = meta.stopReason === "maxTokens" ? Math.max(maxTokens ?? 0, model.tokenize(text).length) : model.tokenize(text).length;
    const final = {
      model: args.name,
      created_at: created(),
      message: { role: "assistant", content: stream ? "" : text },
      done: true,
      done_reason: meta.stopReason === "maxTokens" ? "length" : "stop",
      total_duration: Number(ended - started),
      load_duration: 0,
      prompt_eval_count: promptEval,
      prompt_eval_duration: Number((firstAt ?? ended) - started),
      eval_count: evalCount,
      eval_duration: Number(ended - (firstAt ?? ended)),
    };
    if (stream) res.end(JSON.stringify(final) + "\n");
    else send(res, 200, final);
  });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://localhost");
  try {
    if (req.method === "GET" && (url.pathname === "/" || url.pathname === "")) return send(res, 200, "Ollama is running");
    if (req.method === "HEAD" && url.pathname === "/") return send(res, 200, "");
    if (req.method === "GET" && url.pathname === "/api/version") return send(res, 200, { version: "0.6.0" });
    if (req.method === "GET" && url.pathname === "/api/tags") {
      return send(res, 200, {
        models: [{ name: args.name, model: args.name, modified_at: new Date(fs.statSync(modelPath).mtime).toISOString(), size: modelSize, digest: "", details }],
      });
    }
    if (req.method === "POST" && url.pathname === "/api/show") {
      const body = await readJson(req).catch(() => ({}));
      const name = body.model ?? body.name;
      if (!sameModel(name)) return send(res, 404, { error: `model '${name}' not found` });
      return send(res, 200, { modelfile: "", parameters: "", template: "", details, model_info: {} });
    }
    if (req.method === "POST" && url.pathname === "/api/chat") return await chat(req, res);
    return send(res, 404, "404 page not found");
  } catch (e) {
    if (!res.headersSent) send(res, 500, { error: e.message });
    else res.end();
  }
});

server.listen(Number(args.port), args.host, () => {
  const a = server.address();
  const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
  process.stdout.write(`listening on http://${host}:${a.port}\n`);
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    server.close();
    await context.dispose();
    await model.dispose();
    process.exit(0);
  });
}
