// Shared by the browser end-to-end tests: where the binaries and screenshots are, the check
// that they exist (skip locally, fail under CI=true), and starting a child process.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(repo, 'target');
export const vidyaBin = process.env.VIDYA_BIN || join(target, 'debug', 'vidya');
export const serverBin = process.env.OLLAMA_TEST_SERVER_BIN || join(target, 'debug', 'ollama-test-server');
export const chromiumBin = process.env.CHROMIUM || '/usr/bin/chromium';
export const shots = resolve(process.env.VIDYA_E2E_OUT || join(repo, 'target', 'e2e-screenshots'));

/** True when a binary the browser tests need is missing (printed; an error under CI=true). */
export function missingBinaries() {
  const missing = [vidyaBin, serverBin, chromiumBin].filter((p) => !existsSync(p));
  if (missing.length) {
    const why = `e2e: missing ${missing.join(', ')} (build with cargo build -p vidya-cli -p ollama-test-server; install chromium)`;
    if (process.env.CI === 'true') throw new Error(why);
    console.log(`SKIP ${why}`);
  }
  return missing.length > 0;
}

/** Starts `bin` (added to `children`) and resolves with the first output matching `pattern`. */
export function startProcess(children, bin, args, env, pattern) {
  return new Promise((resolveStart, reject) => {
    const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${bin} did not start: ${seen}`)), 60000);
    const onData = (d) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) { clearTimeout(timer); resolveStart({ child, match: m }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); if (!pattern.test(seen)) reject(new Error(`${bin} exited ${code}: ${seen}`)); });
  });
}
