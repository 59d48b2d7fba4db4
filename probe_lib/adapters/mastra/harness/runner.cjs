'use strict';
// One long-lived Node process running scenarios against one pinned @mastra/core.
//
//   node runner.cjs MODULES_DIR VERSION [CONCURRENCY]
//
// Reads one JSON scenario per line on stdin and writes one JSON result per line on stdout, each prefixed with
// RESULT_MARK so that anything Mastra itself prints to stdout cannot be mistaken for a result. A scenario that
// throws or hangs is reported with its error; it never stops the batch. See probe_lib/harness.py for the shapes.

const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');

const [modulesDir, version, concurrencyArg] = process.argv.slice(2);
const RESULT_MARK = '\u001eRESULT ';
const requireFrom = createRequire(path.join(path.resolve(modulesDir), 'noop.js'));
const pkg = `mastra-${version}`;
const { Agent } = requireFrom(`${pkg}/agent`);
const mastraTools = requireFrom(`${pkg}/tools`);
const { createTool } = mastraTools;
const { MastraLogger } = requireFrom(`${pkg}/logger`);
const { z } = requireFrom('zod');

// The built-in tools this version exports, read from the package: export name -> the tool's own id.
const BUILTINS = Object.fromEntries(Object.entries(mastraTools)
  .filter(([, value]) => value instanceof mastraTools.Tool)
  .map(([name, tool]) => [name, tool.id]));

// What the package itself says, for the ledger: its built-ins and the source text of the normaliser.
function packageFacts() {
  return { builtins: BUILTINS, formatToolsSource: Agent.prototype.formatTools.toString() };
}

// A logger that keeps every record Mastra writes (all levels, exceptions it tracks) in `sink`, instead of the
// console: what an application's own logger would receive. Records are plain data, without timestamps.
class CapturingLogger extends MastraLogger {
  constructor(sink, component) {
    super({ name: 'probe', level: 'debug' });
    this.sink = sink;
    this.component = component ?? null;
  }
  child(componentOrBindings) {
    const component = typeof componentOrBindings === 'string' ? componentOrBindings : componentOrBindings?.component;
    return new CapturingLogger(this.sink, component ?? this.component);
  }
  record(level, message, args) {
    this.sink.push({ level, component: this.component, message: scrub(String(message)), args: args.map(logArg) });
  }
  debug(message, ...args) { this.record('debug', message, args); }
  info(message, ...args) { this.record('info', message, args); }
  warn(message, ...args) { this.record('warn', message, args); }
  error(message, ...args) { this.record('error', message, args); }
  trackException(error) {
    this.sink.push({ level: 'exception', component: this.component, message: scrub(String(error?.message ?? error)), error: describeError(error) });
  }
}

// Values that change run to run (generated ids, times, stacks, the capture server's port) would make recordings
// differ each time: the log keeps where they were, not what they were.
const VOLATILE_KEYS = new Set(['runId', 'threadId', 'resourceId', 'traceId', 'spanId', 'messageId', 'stack', 'date',
  'timestamp', 'createdAt', 'updatedAt', 'startedAt', 'endedAt', 'durationMs', 'elapsedMs']);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const LOOPBACK_PORT = /(http:\/\/127\.0\.0\.1):\d+/g;
// The capture server's per-batch scenario id (its place in the batch), which a rerun of a subset changes.
const SCENARIO_PATH = /\/s\/[^/\s]+\//g;
function scrub(value) {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, VOLATILE_KEYS.has(k) ? '<volatile>' : scrub(v)]));
  }
  if (typeof value === 'string') {
    return value.replace(UUID, '<uuid>').replace(LOOPBACK_PORT, '$1:<port>').replace(SCENARIO_PATH, '/s/<scenario>/');
  }
  return value;
}
function logArg(value) {
  return scrub(value instanceof Error ? { error: describeError(value) } : plain(value));
}

function emit(result) {
  process.stdout.write(RESULT_MARK + JSON.stringify(result) + '\n');
}

// The model settings every scenario uses: an OpenAI-compatible endpoint on the capture server.
function modelConfig(url) {
  return { id: 'openai/gpt-4o-mini', url, apiKey: 'sk-probe-not-a-secret' };
}

// A tool that records its executions into `log` under its registered key (and never returns if `spec.hang`).
function makeTool(spec, log) {
  if (spec.builtin) {
    const tool = mastraTools[spec.builtin];
    if (!tool) throw new Error(`@mastra/core ${version} does not export the built-in tool ${spec.builtin}`);
    return tool;
  }
  return createTool({
    id: spec.id ?? spec.key,
    description: spec.description ?? `probe tool ${spec.id ?? spec.key}`,
    inputSchema: z.object({ city: z.string().optional() }),
    execute: async (input) => {
      log.push({ key: spec.key, id: spec.id ?? spec.key, args: plain(input) });
      if (spec.hang) return new Promise(() => {}); // never settles: the scenario's timeout must end the turn
      return { tempC: 20 };
    },
  });
}

// Own data properties in the given order (Object.fromEntries, like JSON.parse): `__proto__` stays a key.
function record(entries) {
  return Object.fromEntries(entries);
}

// The tool specs of a scenario; `allBuiltins` adds every built-in the package exports, by export name or by id.
function toolSpecsOf(scenario) {
  const specs = scenario.tools ?? [];
  if (!scenario.allBuiltins) return specs;
  const builtins = Object.entries(BUILTINS).map(([name, id]) => ({ key: scenario.allBuiltins === 'id' ? id : name, builtin: name }));
  return [...specs, ...builtins];
}

function buildAgent(scenario, log, logs) {
  const toolSpecs = toolSpecsOf(scenario);
  let keys = toolSpecs.map((spec) => spec.key);
  let mapping = null;
  if (scenario.remedy) {
    mapping = require('./remedy.cjs').safeToolNames(keys);
    keys = keys.map((key) => mapping.get(key));
  }
  const tools = record(toolSpecs.map((spec, i) => [keys[i], makeTool(spec, log)]));
  const config = {
    id: scenario.agentId ?? 'probe',
    name: scenario.agentName ?? 'probe',
    instructions: scenario.instructions ?? 'p',
    model: modelConfig(scenario.url),
    tools,
  };
  if (scenario.agents) {
    config.agents = record(scenario.agents.map((spec) => [spec.key, new Agent({
      id: spec.id ?? spec.key, name: spec.id ?? spec.key, description: `sub-agent ${spec.key}`,
      instructions: 'p', model: modelConfig(scenario.url),
    })]));
  }
  if (scenario.workflows) config.workflows = record(scenario.workflows.map((spec) => [spec.key, makeWorkflow(spec)]));
  const agent = new Agent(config);
  agent.__setLogger(new CapturingLogger(logs));
  // Agents that share the very same tools record (the article's "one registry, several agents"); each runs a turn
  // after the first agent's turn.
  const sharers = Array.from({ length: (scenario.sharedBy ?? 1) - 1 }, (_, i) => {
    const other = new Agent({ ...config, id: `probe-${i + 2}`, name: `probe-${i + 2}` });
    other.__setLogger(new CapturingLogger(logs));
    return other;
  });
  return { agent, sharers, tools, mapping };
}

function makeWorkflow(spec) {
  const { createWorkflow, createStep } = requireFrom(`${pkg}/workflows`);
  const step = createStep({
    id: `${spec.id ?? spec.key}-step`,
    inputSchema: z.object({}),
    outputSchema: z.object({}),
    execute: async () => ({}),
  });
  return createWorkflow({
    id: spec.id ?? spec.key, description: `workflow ${spec.key}`,
    inputSchema: z.object({}), outputSchema: z.object({}),
  }).then(step).commit();
}

function callOptions(scenario, log, mapping) {
  const options = { maxSteps: scenario.maxSteps ?? 1 };
  let toolChoice = scenario.toolChoice;
  let activeTools = scenario.activeTools;
  if (mapping) {
    const remedy = require('./remedy.cjs');
    toolChoice = remedy.applyToToolChoice(toolChoice, mapping);
    if (activeTools) activeTools = remedy.applyToActiveTools(activeTools, mapping);
  }
  if (toolChoice !== undefined && toolChoice !== null) options.toolChoice = toolChoice;
  if (activeTools) options.activeTools = activeTools;
  if (scenario.toolsets) {
    options.toolsets = Object.fromEntries(Object.entries(scenario.toolsets).map(([name, specs]) => [
      name, record(specs.map((spec) => [spec.key, makeTool(spec, log)])),
    ]));
  }
  if (scenario.clientTools) options.clientTools = record(scenario.clientTools.map((spec) => [spec.key, makeTool(spec, log)]));
  return options;
}

// JSON-safe copy of anything (errors, zod-parsed args, results).
function plain(value) {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
}

// An error and its `cause` chain, outermost first.
function describeError(error) {
  const chain = [];
  for (let e = error, depth = 0; e && depth < 8; e = e.cause, depth += 1) {
    chain.push({
      name: e.name ?? typeof e,
      class: typeof e === 'object' ? e.constructor?.name ?? null : null,
      id: e.id ?? null,
      domain: e.domain ?? null,
      category: e.category ?? null,
      message: typeof e === 'object' ? String(e.message ?? '') : String(e),
      details: e.details ? plain(e.details) : null,
    });
  }
  return chain;
}

function toolName(chunk) {
  return chunk?.payload?.toolName ?? chunk?.toolName ?? null;
}

async function runGenerate(agent, scenario, options, observed) {
  const result = await agent.generate(scenario.prompt ?? 'hi', options);
  observed.toolNames.push(...(result.toolCalls ?? []).map(toolName));
  observed.resultToolNames.push(...(result.toolResults ?? []).map(toolName));
  observed.text = result.text ?? null;
  if (result.error) throw result.error;
}

async function runStream(agent, scenario, options, observed) {
  const output = await agent.stream(scenario.prompt ?? 'hi', options);
  for await (const chunk of output.fullStream) {
    if (chunk.type === 'tool-call') observed.toolNames.push(toolName(chunk));
    if (chunk.type === 'tool-result') observed.resultToolNames.push(toolName(chunk));
    if (chunk.type === 'error') observed.streamErrors.push(describeError(chunk.payload?.error ?? chunk.error));
  }
  observed.text = (await output.text) ?? null;
}

async function runScenario(scenario) {
  const started = process.hrtime.bigint();
  const log = [];
  const logs = [];
  const observed = { toolNames: [], resultToolNames: [], streamErrors: [], text: null };
  const result = { id: scenario.id, version, error: null, executions: log, observed, logs };
  if (scenario.allBuiltins || scenario.reportPackage) result.package = packageFacts();
  let timer;
  try {
    const { agent, sharers, tools, mapping } = buildAgent(scenario, log, logs);
    const idsBefore = Object.values(tools).map((tool) => tool.id);
    const options = callOptions(scenario, log, mapping);
    const run = scenario.method === 'stream' ? runStream : runGenerate;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`scenario timed out after ${scenario.timeoutMs ?? 10000} ms`)),
        scenario.timeoutMs ?? 10000);
    });
    for (const each of [agent, ...sharers]) {
      try {
        await Promise.race([run(each, scenario, options, observed), timeout]);
      } catch (error) {
        result.error = describeError(error); // with sharers: the last turn's error (each gets the capture's 400)
      }
    }
    result.mapping = mapping && Object.fromEntries(mapping);
    result.keysAfter = Object.keys(tools);
    result.idsBefore = idsBefore;
    result.idsAfter = Object.values(tools).map((tool) => tool.id);
  } catch (error) {
    result.error = describeError(error);
  } finally {
    clearTimeout(timer);
  }
  result.elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  return result;
}

// Function-level mode: the real Agent.formatTools on a record of keys, without a request (for big key sets).
// An error goes back as its chain, like a scenario's, so Python judges both in one place (runner.classify).
function formatKeys(agent, keys) {
  const marker = { id: 'marker' };
  try {
    return { names: Object.keys(agent.formatTools(record(keys.map((key) => [key, marker])))) };
  } catch (error) {
    return { error: describeError(error) };
  }
}

let formatAgent = null;
function runFormat(scenario) {
  formatAgent ??= new Agent({ id: 'format', name: 'format', instructions: 'p', model: modelConfig('http://127.0.0.1:9/v1') });
  const started = process.hrtime.bigint();
  const results = scenario.records.map((keys) => formatKeys(formatAgent, keys));
  return { id: scenario.id, version, results, elapsedMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

async function main() {
  const limit = Math.max(1, Number(concurrencyArg ?? 16));
  const running = new Set();
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  emit({ ready: true, version });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let scenario;
    try {
      scenario = JSON.parse(line);
    } catch (error) {
      emit({ id: null, version, error: describeError(error) });
      continue;
    }
    if (scenario.op === 'package') {
      emit({ id: scenario.id, version, ...packageFacts() });
      continue;
    }
    if (scenario.op === 'format') {
      emit(runFormat(scenario));
      continue;
    }
    while (running.size >= limit) await Promise.race(running);
    const task = runScenario(scenario).then(emit, (error) => emit({ id: scenario.id, version, error: describeError(error) }))
      .finally(() => running.delete(task));
    running.add(task);
  }
  await Promise.all(running);
}

process.on('unhandledRejection', () => {}); // a scenario's stray rejection must not end the batch
main().catch((error) => {
  process.stderr.write(`runner: ${error?.stack ?? error}\n`);
  process.exit(1);
});
