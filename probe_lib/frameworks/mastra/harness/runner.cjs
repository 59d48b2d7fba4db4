'use strict';
// One long-lived Node process running scenarios against one @mastra/core version, of any era.
//
//   node runner.cjs MODULES_DIR VERSION [CONCURRENCY]
//
// Reads one JSON scenario per line on stdin and writes one JSON result per line on stdout, each prefixed with
// RESULT_MARK so that anything Mastra itself prints to stdout cannot be mistaken for a result. A scenario that
// throws or hangs is reported with its error; it never stops the batch. See probe_lib/harness.py for the shapes.

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');
const { pathToFileURL } = require('url');
const { AsyncLocalStorage } = require('async_hooks');
const lines = require('../../harness/lines.cjs');

const { emit, plain } = lines;

const [modulesDir, version, concurrencyArg] = process.argv.slice(2);
// How long a stream's text may take to settle once the stream itself has ended (it is already known by then).
const TEXT_SETTLE_MS = 5000;
const requireFrom = createRequire(path.join(path.resolve(modulesDir), 'noop.js'));
const pkg = `mastra-${version}`;
const IS_0X = version.startsWith('0.');
const { z } = requireFrom('zod');

// What this version offers, filled in by loadEra() before the first scenario (each era differs; see below).
let Agent = null;
// The Mastra class (the registry an app builds its agents and tools into), or null where the version has none;
// undefined until main() loads it for the first scenario with lookups (loadModulesFor).
let Mastra;
let mastraTools = {};
let createTool = null;
let modelConfig = null;
// The built-in tools this version exports, read from the package: export name -> the tool's own id.
let BUILTINS = {};
// The logger class that keeps Mastra's records (null where the version has no MastraLogger to extend).
let CapturingLogger = null;
// Why no scenario can run on this version at all (e.g. 0.1.x has no Agent), or null.
let unavailable = null;

// A scenario this version cannot express: classified "not applicable" (probe_lib/frameworks/mastra/runner.classify).
class NotApplicable extends Error {
  constructor(message) {
    super(message);
    this.name = 'NotApplicable';
  }
}

// The import target of `${pkg}${sub}` from the package's own `exports` map (ESM-only versions such as 0.2.x).
function importPath(sub) {
  const root = path.join(path.resolve(modulesDir), pkg);
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const exportsMap = manifest.exports ?? {};
  let target = exportsMap[`.${sub}`];
  if (target === undefined && sub && exportsMap['./*'] !== undefined) {
    target = JSON.parse(JSON.stringify(exportsMap['./*']).split('*').join(sub.slice(1)));
  }
  const pick = (t) => (typeof t === 'string' ? t : pick(t.import ?? t.default ?? t.node));
  return path.join(root, target === undefined ? (sub ? `dist${sub}/index.js` : manifest.module ?? manifest.main) : pick(target));
}

// `${pkg}${sub}` by require(), or by import() when this version ships it as ESM only; null when absent.
async function load(sub) {
  try {
    return requireFrom(`${pkg}${sub}`);
  } catch (error) {
    if (!['ERR_REQUIRE_ESM', 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'MODULE_NOT_FOUND'].includes(error.code)) throw error;
  }
  const file = importPath(sub);
  return fs.existsSync(file) ? import(pathToFileURL(file).href) : null;
}

// The eras, told apart by what the package exports rather than by version number:
// - no Agent (0.1.x, an earlier product under the same name): every scenario is "not applicable";
// - AI SDK 4 era (0.2 to 0.19, no model router exported): the model is an AI SDK LanguageModelV1 (`@ai-sdk/openai` 1.x, Chat Completions)
//   and generate()/stream() are the AI SDK 4 calls; tools' execute receives `{ context }`;
// - model-router era (0.20 on, where generate() became the AI SDK 5 loop, and 1.x):
//   the model is an OpenAI-compatible config `{ id, url, apiKey }` (0.20.x: `url` is the full endpoint).
async function loadEra() {
  const agentModule = (await load('/agent')) ?? (await load(''));
  Agent = agentModule?.Agent ?? null;
  if (typeof Agent !== 'function') {
    unavailable = `@mastra/core ${version} exports no Agent class (an earlier product under the same name)`;
    return;
  }
  mastraTools = (await load('/tools')) ?? {};
  createTool = mastraTools.createTool ?? null;
  const { MastraLogger } = (await load('/logger')) ?? {};
  CapturingLogger = typeof MastraLogger === 'function' ? capturingLoggerOf(MastraLogger) : null;
  BUILTINS = typeof mastraTools.Tool === 'function' ? Object.fromEntries(Object.entries(mastraTools)
    .filter(([, value]) => value instanceof mastraTools.Tool)
    .map(([name, tool]) => [name, tool.id])) : {};
  // A 0.x version has the router when its `/llm` entry exports one (0.17-0.19 already have generateLegacy() but no
  // router, and their generate() still wants an AI SDK 4 model). 0.20.x's first router (OpenAICompatibleModel)
  // posts to `url` itself, so it takes the full endpoint; every later router takes a base URL.
  // 0.19.x already exports a router, yet its generate() still refuses anything but an AI SDK 4 model (measured).
  const llm = IS_0X ? (await load('/llm')) ?? {} : {};
  const minor = Number(version.split('.')[1]);
  const usesRouter = !IS_0X || (Boolean(llm.OpenAICompatibleModel || llm.ModelRouterLanguageModel) && minor >= 20);
  const fullEndpoint = Boolean(llm.OpenAICompatibleModel) && !llm.ModelRouterLanguageModel;
  if (usesRouter) {
    modelConfig = (url, wire) => (ROUTER_PATHS[wire] ? routerPath(wire, url, fullEndpoint) : {
      id: 'openai/gpt-4o-mini', url: fullEndpoint ? `${url}/chat/completions` : url, apiKey: 'sk-probe-not-a-secret',
    });
  } else {
    const { createOpenAI } = requireFrom('@ai-sdk/openai');
    modelConfig = (url, wire) => {
      if (ROUTER_PATHS[wire]) throw new NotApplicable(`@mastra/core ${version} has no model router, so no ${wire} path`);
      return createOpenAI({ baseURL: url, apiKey: 'sk-probe-not-a-secret', compatibility: 'strict' }).chat('gpt-4o-mini');
    };
  }
}

// The model router's own provider paths: a router id without a `url` makes Mastra build the provider's AI SDK model
// itself (`openai/...` -> @ai-sdk/openai's Responses model, `anthropic/...` -> @ai-sdk/anthropic's Messages model),
// with the base URL read from the provider's *_BASE_URL variable when the model is resolved. Each scenario has its
// own capture URL, so the variable answers per scenario (AsyncLocalStorage follows the turn through every await),
// and the API key differs per scenario because the router caches resolved models by key, not by base URL.
const ROUTER_PATHS = {
  responses: { id: 'openai/gpt-4o-mini', baseUrlVar: 'OPENAI_BASE_URL' },
  messages: { id: 'anthropic/claude-haiku-4-5', baseUrlVar: 'ANTHROPIC_BASE_URL' },
};
const scenarioUrl = new AsyncLocalStorage();
const realEnv = process.env;
// Mastra instances (the lookup scenarios build them) report usage to Mastra's telemetry service unless this is set.
realEnv.MASTRA_TELEMETRY_DISABLED = '1';
const baseUrlVars = new Set(Object.values(ROUTER_PATHS).map((each) => each.baseUrlVar));
process.env = new Proxy(realEnv, {
  get: (env, name) => (baseUrlVars.has(name) && scenarioUrl.getStore()?.path ? scenarioUrl.getStore().url : env[name]),
});
// Nothing leaves the machine: a version whose router ignores the *_BASE_URL variable (0.21-0.24 for anthropic/...)
// would post to the real provider; on a router path any request off loopback is refused, as "not applicable".
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const store = scenarioUrl.getStore();
  const target = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  if (store?.path && target.hostname !== '127.0.0.1') {
    // Kept on the turn's context too: the version may rewrap the error as a plain Error, losing its name.
    store.refused = `@mastra/core ${version}'s ${store.path.id.split('/')[0]} provider ignores ${store.path.baseUrlVar} `
      + `and would call ${target.host}, so its ${store.wire} path cannot be pointed at the capture server`;
    return Promise.reject(new NotApplicable(store.refused));
  }
  return realFetch(input, init);
};
function routerPath(wire, url, chatOnly) {
  if (chatOnly) throw new NotApplicable(`@mastra/core ${version}'s first model router speaks Chat Completions only, so no ${wire} path`);
  return { id: ROUTER_PATHS[wire].id, apiKey: `sk-probe-${url.replace(/^.*\/s\/([^/]+)\/.*$/, '$1')}` };
}

// What the package itself says, for the ledger: its built-ins and the source text of the normaliser.
function packageFacts() {
  if (unavailable) return { builtins: {}, formatToolsSource: null };
  return { builtins: BUILTINS, formatToolsSource: Agent.prototype.formatTools?.toString() ?? null };
}

// The Markdown pages of the docs the package ships: its README and every page under dist/docs, in a fixed order.
function docPages() {
  const root = path.join(path.resolve(modulesDir), pkg);
  const pages = [];
  const walk = (folder) => {
    if (!fs.existsSync(folder)) return;
    for (const entry of fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.mdx?$/.test(entry.name)) pages.push(full);
    }
  };
  if (fs.existsSync(path.join(root, 'README.md'))) pages.push(path.join(root, 'README.md'));
  walk(path.join(root, 'dist', 'docs'));
  return pages.map((page) => ({ file: path.relative(root, page).split(path.sep).join('/'), lines: fs.readFileSync(page, 'utf8').split('\n') }));
}

const FENCE = /^\s*(```|~~~)/;

// The sections of those docs whose heading reads as one of `headings` once code and emphasis marks are dropped:
// per heading, each page holding it and the section's text, from its heading to the next heading of the same or a
// higher level.
function shippedDocs(headings) {
  const plainHeading = (text) => text.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();
  const wanted = new Map(headings.map((heading) => [plainHeading(heading), heading]));
  const found = Object.fromEntries(headings.map((heading) => [heading, []]));
  for (const { file, lines } of docPages()) {
    let fenced = false;
    let open = null; // the section being read: { heading, level, start }
    const close = (end) => {
      if (open) found[open.heading].push({ file, text: lines.slice(open.start, end).join('\n').trim() });
      open = null;
    };
    lines.forEach((line, number) => {
      if (FENCE.test(line)) fenced = !fenced;
      const heading = fenced ? null : /^(#{1,6})\s+(.*)$/.exec(line);
      if (!heading) return;
      if (open && heading[1].length <= open.level) close(number);
      const asked = wanted.get(plainHeading(heading[2]));
      if (asked !== undefined && !open) open = { heading: asked, level: heading[1].length, start: number };
    });
    close(lines.length);
  }
  return found;
}

// Every line of those docs that holds one of `texts`: per text, its page, its line number (from 1), the line
// trimmed, and whether it lies inside a fenced code block (an example, rather than prose or a reference table).
function shippedMentions(texts) {
  const found = Object.fromEntries(texts.map((text) => [text, []]));
  for (const { file, lines } of docPages()) {
    let fenced = false;
    lines.forEach((line, number) => {
      const fence = FENCE.test(line);
      if (fence) fenced = !fenced;
      for (const text of texts) {
        if (!fence && line.includes(text)) found[text].push({ file, line: number + 1, text: line.trim(), code: fenced });
      }
    });
  }
  return found;
}

// A logger that keeps every record Mastra writes (all levels, exceptions it tracks) in `sink`, instead of the
// console: what an application's own logger would receive. Records are plain data, without timestamps. With
// `exceptionsOnly` (a scenario's `logs: false`) it keeps only the exceptions, which is all the collision check
// reads, and skips copying the rest. Built on this version's MastraLogger once it is loaded.
function capturingLoggerOf(MastraLogger) {
  return class CapturingLogger extends MastraLogger {
  constructor(sink, exceptionsOnly, component) {
    super({ name: 'probe', level: 'debug' });
    this.sink = sink;
    this.exceptionsOnly = exceptionsOnly;
    this.component = component ?? null;
  }
  child(componentOrBindings) {
    const component = typeof componentOrBindings === 'string' ? componentOrBindings : componentOrBindings?.component;
    return new CapturingLogger(this.sink, this.exceptionsOnly, component ?? this.component);
  }
  record(level, message, args) {
    if (this.exceptionsOnly) return;
    this.sink.push({ level, component: this.component, message: scrub(String(message)), args: args.map(logArg) });
  }
  debug(message, ...args) { this.record('debug', message, args); }
  info(message, ...args) { this.record('info', message, args); }
  warn(message, ...args) { this.record('warn', message, args); }
  error(message, ...args) { this.record('error', message, args); }
  trackException(error) {
    this.sink.push({ level: 'exception', component: this.component, message: scrub(String(error?.message ?? error)), error: describeError(error) });
  }
  };
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

// A tool that records its executions into `log` under its registered key (and never returns if `spec.hang`).
function makeTool(spec, log) {
  if (spec.builtin) {
    const tool = mastraTools[spec.builtin];
    if (!tool) throw new NotApplicable(`@mastra/core ${version} does not export the built-in tool ${spec.builtin}`);
    return tool;
  }
  if (typeof createTool !== 'function') throw new NotApplicable(`@mastra/core ${version} exports no createTool`);
  return createTool({
    id: spec.id ?? spec.key,
    description: spec.description ?? `probe tool ${spec.id ?? spec.key}`,
    inputSchema: z.object({ city: z.string().optional() }),
    execute: async (input) => {
      const args = IS_0X && input && typeof input === 'object' && 'context' in input ? input.context : input; // 0.x: { context }
      log.push({ key: spec.key, id: spec.id ?? spec.key, args: plain(args) });
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
    model: modelConfig(scenario.url, scenario.wire),
    tools,
  };
  if (scenario.agents) {
    config.agents = record(scenario.agents.map((spec) => [spec.key, new Agent({
      id: spec.id ?? spec.key, name: spec.id ?? spec.key, description: `sub-agent ${spec.key}`,
      instructions: 'p', model: modelConfig(scenario.url, scenario.wire),
    })]));
  }
  if (scenario.workflows) config.workflows = record(scenario.workflows.map((spec) => [spec.key, makeWorkflow(spec)]));
  const agent = new Agent(config);
  if (CapturingLogger) agent.__setLogger(new CapturingLogger(logs, scenario.logs === false));
  const registry = scenario.lookups ? registerOnMastra(scenario, agent, log, logs) : null;
  // Agents that share the very same tools record (the article's "one registry, several agents"); each runs a turn
  // after the first agent's turn.
  const sharers = Array.from({ length: (scenario.sharedBy ?? 1) - 1 }, (_, i) => {
    const other = new Agent({ ...config, id: `probe-${i + 2}`, name: `probe-${i + 2}` });
    if (CapturingLogger) other.__setLogger(new CapturingLogger(logs, scenario.logs === false));
    return other;
  });
  return { agent, sharers, tools, mapping, registry };
}

// A Mastra instance holding `agent` under `scenario.agentKey` and the tools `scenario.mastraTools` under their keys,
// for the lookup surfaces (measureSurfaces). Each tool is labelled with where it was registered, so a lookup's answer
// says which registration it found.
function registerOnMastra(scenario, agent, log, logs) {
  if (typeof Mastra !== 'function') throw new NotApplicable(`@mastra/core ${version} exports no Mastra class`);
  const mastraLevel = record((scenario.mastraTools ?? []).map((spec) => [spec.key, makeTool(spec, log)]));
  const labels = new Map(Object.entries(mastraLevel).map(([key, tool]) => [tool, `mastra:${key}`]));
  const config = { agents: record([[scenario.agentKey ?? agent.id, agent]]), tools: mastraLevel };
  if (CapturingLogger) config.logger = new CapturingLogger(logs, scenario.logs === false);
  return { mastra: new Mastra(config), labels };
}

// Mastra's own lookup surfaces, each asked for every string of `scenario.lookups` (the key, the id, the wire name):
// per method, null where this version has no such method, else each string's answer (the registration found, what
// it returned, or the error it threw); a listing method gives its entries as [key, id]. The method names differ by
// era (Mastra.listAgents was getAgents, Agent.listTools was getTools), so every name of each role is tried.
const MASTRA_FINDERS = ['getTool', 'getToolById', 'getAgent', 'getAgentById'];
const MASTRA_LISTINGS = ['listTools', 'getTools', 'listAgents', 'getAgents'];
const AGENT_LISTINGS = ['listTools', 'getTools'];
async function measureSurfaces(scenario, agent, agentTools, registry) {
  const { mastra, labels } = registry;
  for (const [key, tool] of Object.entries(agentTools)) labels.set(tool, `agent:${key}`);
  labels.set(agent, 'agent');
  const answer = async (call) => {
    try {
      const found = await call();
      if (found === undefined || found === null) return { returned: null };
      return { found: labels.get(found) ?? null, id: found.id ?? null };
    } catch (error) {
      return { error: error?.id ?? error?.name ?? 'Error', message: scrub(String(error?.message ?? error)) };
    }
  };
  const listing = async (call) => {
    try {
      return Object.entries((await call()) ?? {}).map(([key, value]) => [key, value?.id ?? null]);
    } catch (error) {
      return { error: error?.id ?? error?.name ?? 'Error', message: scrub(String(error?.message ?? error)) };
    }
  };
  const surfaces = {};
  for (const method of MASTRA_FINDERS) {
    if (typeof mastra[method] !== 'function') { surfaces[`Mastra.${method}`] = null; continue; }
    surfaces[`Mastra.${method}`] = {};
    for (const query of scenario.lookups) surfaces[`Mastra.${method}`][query] = await answer(() => mastra[method](query));
  }
  for (const method of MASTRA_LISTINGS) {
    surfaces[`Mastra.${method}`] = typeof mastra[method] === 'function' ? await listing(() => mastra[method]()) : null;
  }
  for (const method of AGENT_LISTINGS) {
    surfaces[`Agent.${method}`] = typeof agent[method] === 'function' ? await listing(() => agent[method]()) : null;
  }
  return surfaces;
}

function makeWorkflow(spec) {
  const { createWorkflow, createStep } = workflowsModule ?? {};
  if (typeof createWorkflow !== 'function') throw new NotApplicable(`@mastra/core ${version} exports no createWorkflow`);
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

// An error and its `cause` chain, outermost first, with Mastra's own error fields (MastraError's id, domain,
// category and details) on each link, and its `code`: a MastraError rebuilt from its JSON form (a wrapped
// cause) is a plain Error that carries its id there.
function describeError(error) {
  return lines.describeError(error, (e) => ({
    class: typeof e === 'object' ? e.constructor?.name ?? null : null,
    id: e.id ?? null,
    code: typeof e?.code === 'string' ? e.code : null,
    domain: e.domain ?? null,
    category: e.category ?? null,
    details: e.details ? plain(e.details) : null,
  }));
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
  // The stream has ended, so its text must settle now; the AI SDK 4 era's never does after an error part.
  let settle;
  const unsettled = new Promise((_, reject) => {
    settle = setTimeout(() => reject(new Error(`stream ended but its text did not settle within ${TEXT_SETTLE_MS} ms`)), TEXT_SETTLE_MS);
  });
  try {
    observed.text = (await Promise.race([output.text, unsettled])) ?? null;
  } finally {
    clearTimeout(settle);
  }
}

async function runScenario(scenario) {
  const started = process.hrtime.bigint();
  if (unavailable) {
    return { id: scenario.id, version, error: describeError(new NotApplicable(unavailable)), executions: [],
      observed: { toolNames: [], resultToolNames: [], streamErrors: [], text: null }, logs: [], elapsedMs: 0 };
  }
  await loadModulesFor(scenario); // done by main(); a load that threw there throws here, as this turn's error
  const log = [];
  const logs = [];
  const observed = { toolNames: [], resultToolNames: [], streamErrors: [], text: null };
  const result = { id: scenario.id, version, error: null, executions: log, observed, logs };
  if (scenario.allBuiltins || scenario.reportPackage) result.package = packageFacts();
  if (scenario.docsSections) result.package = { docs: shippedDocs(scenario.docsSections) };
  if (scenario.docsMentions) result.package = { ...result.package, mentions: shippedMentions(scenario.docsMentions) };
  let timer;
  try {
    const { agent, sharers, tools, mapping, registry } = buildAgent(scenario, log, logs);
    const idsBefore = Object.values(tools).map((tool) => tool.id);
    if (registry) result.surfaces = await measureSurfaces(scenario, agent, tools, registry);
    const options = callOptions(scenario, log, mapping);
    const run = scenario.method === 'stream' ? runStream : runGenerate;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`scenario timed out after ${scenario.timeoutMs ?? 10000} ms`)),
        scenario.timeoutMs ?? 10000);
    });
    const turnContext = { url: scenario.url, wire: scenario.wire, path: ROUTER_PATHS[scenario.wire], refused: null };
    for (const each of [agent, ...sharers]) {
      const turn = () => run(each, scenario, options, observed);
      try {
        // Only a router path reads the turn's context. A chat turn runs outside it, so a batch of them never enables
        // the kit's AsyncLocalStorage, which once enabled is carried through every promise Mastra makes.
        await Promise.race([turnContext.path ? scenarioUrl.run(turnContext, turn) : turn(), timeout]);
      } catch (error) {
        result.error = describeError(error); // with sharers: the last turn's error (each gets the capture's 400)
      }
    }
    if (turnContext.refused) result.error = describeError(new NotApplicable(turnContext.refused));
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
let workflowsModule = null;
function runFormat(scenario) {
  if (unavailable) return { id: scenario.id, version, results: scenario.records.map(() => ({ error: describeError(new NotApplicable(unavailable)) })), elapsedMs: 0 };
  formatAgent ??= new Agent({ id: 'format', name: 'format', instructions: 'p', model: modelConfig('http://127.0.0.1:9/v1') });
  const started = process.hrtime.bigint();
  const results = scenario.records.map((keys) => formatKeys(formatAgent, keys));
  return { id: scenario.id, version, results, elapsedMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

// The entries only some scenarios use, loaded by the first that does (most never do, and loading them cost each
// runner's start ~0.1 s of CPU).
async function loadModulesFor(scenario) {
  if (scenario.workflows) workflowsModule ??= (await load('/workflows')) ?? {};
  if (scenario.lookups && Mastra === undefined) Mastra = ((await load('/mastra')) ?? (await load('')))?.Mastra ?? null;
}

// Whether `scenario` needs an entry not loaded yet. main() loads it with no turn in flight: a turn may be import()-ing
// an ES module that the entry's CommonJS build require()s, and Node.js throws when require() meets a module still
// loading (ERR_INTERNAL_ASSERTION "Cannot require() ES Module ... not yet fully loaded": 1.0.4's /mastra require()s
// p-map while its agent loop import()s it; seen in a live report, its three lookup scenarios crashed).
function needsLoading(scenario) {
  return !unavailable && ((scenario.workflows && workflowsModule === null) || (scenario.lookups && Mastra === undefined));
}

async function main() {
  const limit = Math.max(1, Number(concurrencyArg ?? 16));
  const running = new Set();
  await loadEra();
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
    if (needsLoading(scenario)) {
      await Promise.all(running);
      await loadModulesFor(scenario).catch(() => {}); // a failed load is retried by the turn, and reported as its error
    }
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
