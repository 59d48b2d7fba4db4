'use strict';
// Bare @mastra/core turns: the ceiling the kit's probe is measured against (benchmarks/wire_throughput.py --ratio).
//
//   node bare_turns.cjs MODULES_DIR VERSION KEYSETS.json [CONCURRENCY]
//
// Nothing of the kit runs in the turn: each key set becomes one Agent whose tools are registered under those keys,
// and one generate() against a loopback server in this process that answers every request as the capture server
// does (HTTP 400, an OpenAI error body), so the agent loop ends right after the request. Prints one JSON line: the
// turns run, the requests the server answered (one a turn, else a turn failed before sending and was not timed as
// one), wall seconds, and this process's CPU seconds. Mastra's own logging is silenced (noopLogger). 1.x releases only (the model-router era).

const http = require('http');
const path = require('path');
const fs = require('fs');
const { createRequire } = require('module');

const [modulesDir, version, keysetsFile, concurrencyArg] = process.argv.slice(2);
const requireFrom = createRequire(path.join(path.resolve(modulesDir), 'noop.js'));
const { Agent } = requireFrom(`mastra-${version}/agent`);
const { createTool } = requireFrom(`mastra-${version}/tools`);
const { noopLogger } = requireFrom(`mastra-${version}/logger`);
const { z } = requireFrom('zod');
const keysets = JSON.parse(fs.readFileSync(keysetsFile, 'utf8'));
const REFUSAL = JSON.stringify({ error: { message: 'captured', type: 'invalid_request_error', code: null } });

function tool(key) {
  return createTool({ id: key, description: `probe tool ${key}`, inputSchema: z.object({ city: z.string().optional() }),
    execute: async () => ({ tempC: 20 }) });
}

async function turn(url, keys) {
  const tools = Object.fromEntries(keys.map((key) => [key, tool(key)]));
  const agent = new Agent({ id: 'bare', name: 'bare', instructions: 'p', tools,
    model: { id: 'openai/gpt-4o-mini', url, apiKey: 'sk-bare-not-a-secret' } });
  agent.__setLogger(noopLogger); // an application that keeps its console quiet; the 400 is expected
  try {
    await agent.generate('hi', { maxSteps: 1 });
  } catch {
    // every turn ends on the 400, as the probe's do
  }
}

async function main() {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on('end', () => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(REFUSAL);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  const limit = Math.max(1, Number(concurrencyArg ?? 16));
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < keysets.length) await turn(url, keysets[next++]);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  server.close();
  process.stdout.write(`${JSON.stringify({ turns: keysets.length, requests, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
}

main().catch((error) => {
  process.stderr.write(`bare_turns: ${error?.stack ?? error}\n`);
  process.exit(2);
});
