'use strict';
// The real @mastra/mcp client against real MCP servers, one agent turn per server.
//
//   node mcp_runner.cjs MODULES_DIR  <  {"servers": [{"label", "mcpUrl", "modelUrl"}], "timeoutMs"}
//
// For each server: an MCPClient connected to it alone (streamable HTTP on loopback), its listTools() record as
// the client builds it, then an Agent holding exactly that record makes one generate() call against the capture
// server at modelUrl. Prints one JSON line per server: its label, the keys the client produced, and the error
// chain if the turn failed (the request bodies themselves are read from the capture server).

const path = require('path');
const { createRequire } = require('module');

const requireFrom = createRequire(path.join(path.resolve(process.argv[2]), 'noop.js'));
const { MCPClient } = requireFrom('@mastra/mcp');
const { Agent } = requireFrom('@mastra/core/agent');
const { MastraLogger } = requireFrom('@mastra/core/logger');

class SilentLogger extends MastraLogger {  // the client's own chatter would fill stderr; outcomes carry the errors
  debug() {} info() {} warn() {} error() {}
}

function chain(error) {
  const links = [];
  for (let e = error, depth = 0; e && depth < 8; e = e.cause, depth += 1) {
    links.push({ name: e.name ?? typeof e, id: e.id ?? null, message: String(e.message ?? e), toolName: e.details?.toolName ?? null });
  }
  return links;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function probe(server, timeoutMs) {
  const result = { label: server.label, keys: null, error: null };
  const mcp = new MCPClient({ id: `probe-${server.label}`, servers: { [server.label]: { url: new URL(server.mcpUrl) } } });
  try {
    const tools = await withTimeout(mcp.listTools(), timeoutMs, 'listTools');
    result.keys = Object.keys(tools);
    const agent = new Agent({
      id: 'probe', name: 'probe', instructions: 'p', tools,
      model: { id: 'openai/gpt-4o-mini', url: server.modelUrl, apiKey: 'sk-probe-not-a-secret' },
    });
    agent.__setLogger(new SilentLogger());
    await withTimeout(agent.generate('hi', { maxSteps: 1 }), timeoutMs, 'generate');
  } catch (error) {
    result.error = chain(error);
  } finally {
    await mcp.disconnect().catch(() => {});
  }
  return result;
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { servers, timeoutMs = 20000 } = JSON.parse(input);
  for (const server of servers) process.stdout.write(`${JSON.stringify(await probe(server, timeoutMs))}\n`);
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`mcp_runner: ${error?.stack ?? error}\n`);
  process.exit(1);
});
