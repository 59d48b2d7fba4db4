// The Node half of probe_lib/process/lines.py, shared by every Node framework runner (Mastra's runner.cjs uses
// its CommonJS core, lines.cjs, directly).
//
// serve(turn, version) reads one JSON request per line on stdin ({id, url, keys, toolChoice, timeoutMs, ...}),
// runs `await turn(request, log, report)` for each (several at once), and writes one RESULT_MARK-prefixed JSON line
// per request: {id, error (the error and its cause chain, or null), executions (log), timedOut, elapsedMs}, plus
// every field the turn set on `report` (what else its framework told it), even when it threw. A turn that throws
// or hangs is reported with its error; it never stops the batch.

import path from 'node:path';
import readline from 'node:readline';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { emit, plain, describeError } from './lines.cjs';

// Import package `spec` from the installed node_modules folder `modulesDir` (ESM or CommonJS alike).
export async function load(modulesDir, spec) {
  const require = createRequire(path.join(path.resolve(modulesDir), 'noop.js'));
  return import(pathToFileURL(require.resolve(spec)).href);
}

// True when release `version` is `oldest` or later, by its numbers alone: a prerelease counts as its release
// (5.0.0-beta.2 as 5.0.0), so it runs with the API of the series it leads to. A runner's era branches use it.
export function atLeast(version, oldest) {
  const numbers = (text) => text.split('-')[0].split('.').map(Number);
  const [have, want] = [numbers(version), numbers(oldest)];
  for (let i = 0; i < Math.max(have.length, want.length); i++) {
    if ((have[i] ?? 0) !== (want[i] ?? 0)) return (have[i] ?? 0) > (want[i] ?? 0);
  }
  return true;
}

async function runOne(turn, request, version) {
  const started = process.hrtime.bigint();
  const log = [];
  const report = {};
  const result = { id: request.id, version, error: null, executions: log, timedOut: false };
  let timer;
  const limit = request.timeoutMs ?? 10000;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => { result.timedOut = true; reject(new Error(`turn timed out after ${limit} ms`)); }, limit);
  });
  try {
    await Promise.race([turn(request, log, report), timeout]);
  } catch (error) {
    result.error = describeError(error);
  } finally {
    clearTimeout(timer);
  }
  Object.assign(result, plain(report));
  result.executions = plain(log);
  result.elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  return result;
}

export async function serve(turn, version, concurrencyArg) {
  const limit = Math.max(1, Number(concurrencyArg ?? 8));
  const running = new Set();
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  process.on('unhandledRejection', () => {}); // a turn's stray rejection must not end the batch
  emit({ ready: true, version });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const request = JSON.parse(line);
    while (running.size >= limit) await Promise.race(running);
    const task = runOne(turn, request, version).then(emit).finally(() => running.delete(task));
    running.add(task);
  }
  await Promise.all(running);
}
