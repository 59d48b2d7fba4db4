// The Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`): one in-process MCP server holding one tool per key,
// run for one turn by the SDK's bundled Claude Code CLI (a child process of this runner).
//
//   node runner.mjs MODULES_DIR VERSION [CONCURRENCY]
//
// Each tool is made by tool(KEY, ...) in createSdkMcpServer({name: 'probe'}); the SDK has no option that sets
// tool_choice, so nothing is forced. Optional request fields, beside the keyed ones (lines.mjs):
//   allowedTools, disallowedTools  lists passed as the options of the same name (default: allowedTools
//                                  ['mcp__probe'], every tool of the probe server, so a round trip can run)
//   builtins                       the `tools` option (default []: no built-in tool besides the SDK's own);
//                                  releases before 0.1.57 have no such option: there every built-in of
//                                  BUILTINS_BEFORE_TOOLS is disallowed instead, and `builtins` is refused
//   agents                         the `agents` option: {NAME: {description, prompt, tools?, disallowedTools?}}
// Each result also carries `sessionTools` (the tools the CLI's init message lists), `toolUses` (the name of every
// tool call the CLI reported), `cliPid`, `offLoopback` (every socket of the CLI's process tree seen connected
// to an address other than loopback, polled every 25 ms) and `stalled` (the watchdog killed the CLI).
//
// Nothing leaves the machine: the CLI gets ANTHROPIC_BASE_URL on the capture server, a fake key, a home folder
// of its own, and HTTP(S)_PROXY on the capture server, so every request it makes to any other host arrives there
// as a CONNECT (recorded, refused) instead of going out; the socket poll checks that it did.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atLeast, load, serve } from '../../harness/lines.mjs';

const [modulesDir, version, concurrency] = process.argv.slice(2);
const { query, tool, createSdkMcpServer } = await load(modulesDir, '@anthropic-ai/claude-agent-sdk');
const { z } = await load(modulesDir, 'zod');

const FAKE_KEY = 'sk-ant-probe-not-a-secret';
// The `tools` option (`--tools` of the CLI) arrived in 0.1.57. Before it, a built-in is kept off the model's
// tool list by disallowing it: these are the built-ins the CLIs of 0.0.4 to 0.1.42 offered (measured).
const TOOLS_OPTION_SINCE = '0.1.57';
const BUILTINS_BEFORE_TOOLS = [
  'Task', 'Bash', 'Glob', 'Grep', 'ExitPlanMode', 'Read', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'WebFetch',
  'TodoWrite', 'WebSearch', 'BashOutput', 'KillShell', 'Skill', 'SlashCommand',
];
const hasToolsOption = atLeast(version, TOOLS_OPTION_SINCE);
const POLL_MS = 25;
// The watchdog fires this long before the turn's own timeout (lines.mjs), so the CLI is killed first.
const WATCHDOG_MARGIN_MS = 1000;

// The pids of `root` and every descendant (from /proc/PID/task/TID/children).
function tree(root) {
  const found = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.pop();
    found.push(pid);
    let tasks = [];
    try { tasks = fs.readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const task of tasks) {
      try {
        const text = fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
        if (text) queue.push(...text.split(/\s+/).map(Number));
      } catch { /* the task ended */ }
    }
  }
  return found;
}

// A remote address in /proc/net/{tcp,udp}[6] hex form that is neither loopback nor unset.
function offLoopback(hex, ipv6) {
  const [address] = hex.split(':');
  if (!ipv6) return !/^0+$/.test(address) && !address.endsWith('7F'); // little-endian: 127.x.x.x ends in 7F
  const v4mapped = address.startsWith('0000000000000000FFFF0000');
  if (v4mapped) return !address.endsWith('7F');
  return !/^0+$/.test(address) && address !== '00000000000000000000000001000000'; // ::1
}

// Every socket of the tree of `root` connected to an address other than loopback, as "proto remote".
function remoteSockets(root) {
  const seen = [];
  for (const pid of tree(root)) {
    const inodes = new Set();
    let fds = [];
    try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { continue; }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]);
      } catch { /* closed meanwhile */ }
    }
    if (!inodes.size) continue;
    for (const proto of ['tcp', 'tcp6', 'udp', 'udp6']) {
      let rows = [];
      try { rows = fs.readFileSync(`/proc/${pid}/net/${proto}`, 'utf8').trim().split('\n').slice(1); } catch { continue; }
      for (const row of rows) {
        const fields = row.trim().split(/\s+/);
        if (inodes.has(fields[9]) && offLoopback(fields[2], proto.endsWith('6'))) seen.push(`${proto} ${fields[2]}`);
      }
    }
  }
  return seen;
}

function probeTool(key, log) {
  return tool(key, `probe tool ${key}`, { city: z.string().nullable() }, async (args) => {
    log.push({ key, args });
    return { content: [{ type: 'text', text: 'tempC=20' }] };
  });
}

async function turn(request, log, report) {
  if (request.builtins && !hasToolsOption) throw new Error(`builtins need the tools option (${TOOLS_OPTION_SINCE} or later)`);
  const result = Object.assign(report, { sessionTools: null, toolUses: [], offLoopback: [], stalled: false, cliPid: null });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-claude-home-'));
  const base = request.url.replace(/\/v1$/, '');
  // The capture server as a refusing proxy, its user name the scenario (CaptureServer.proxy_url).
  const url = new URL(request.url);
  const proxy = `${url.protocol}//${url.pathname.split('/')[2]}@${url.host}`;
  const abortController = new AbortController();
  let child = null;
  const poll = setInterval(() => {
    if (child?.pid) result.offLoopback.push(...remoteSockets(child.pid));
  }, POLL_MS);
  const watchdog = setTimeout(() => {
    result.stalled = true;
    if (child?.pid) { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ } }
    abortController.abort();
  }, Math.max(1000, (request.timeoutMs ?? 30000) - WATCHDOG_MARGIN_MS));
  const server = createSdkMcpServer({ name: 'probe', version: '1.0.0', tools: request.keys.map((key) => probeTool(key, log)) });
  const options = {
    cwd: home,
    env: {
      PATH: process.env.PATH, HOME: home, TMPDIR: home,
      ANTHROPIC_BASE_URL: base, ANTHROPIC_API_KEY: FAKE_KEY,
      HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy,
      NO_PROXY: '127.0.0.1,localhost,::1', no_proxy: '127.0.0.1,localhost,::1',
      // The kit's one setting: no deferred tool loading, whose placeholder tool would stand among the probe's.
      ENABLE_TOOL_SEARCH: 'false',
    },
    mcpServers: { probe: server },
    ...(hasToolsOption ? { tools: request.builtins ?? [] } : {}),
    allowedTools: request.allowedTools ?? ['mcp__probe'],
    disallowedTools: [
      ...(hasToolsOption ? [] : BUILTINS_BEFORE_TOOLS),
      ...(request.disallowedTools ?? []),
    ],
    ...(request.agents ? { agents: request.agents } : {}),
    maxTurns: (request.maxSteps ?? 1) + 1,
    settingSources: [],
    persistSession: false,
    abortController,
    stderr: () => {},
    // Its own process group, so the watchdog kills the CLI with every process it started.
    spawnClaudeCodeProcess: ({ command, args, cwd, env }) => {
      child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      result.cliPid = child.pid;
      child.stderr.resume();
      return child;
    },
  };
  try {
    for await (const message of query({ prompt: 'hi', options })) {
      if (message.type === 'system' && message.subtype === 'init') result.sessionTools = message.tools;
      if (message.type === 'assistant') {
        for (const block of message.message?.content ?? []) if (block.type === 'tool_use') result.toolUses.push(block.name);
      }
    }
  } catch (error) {
    if (result.stalled) throw new Error(`the Claude Code CLI stalled; the watchdog killed it (pid ${result.cliPid})`);
    throw error;
  } finally {
    clearTimeout(watchdog);
    clearInterval(poll);
    if (child?.pid && child.exitCode === null) { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }
    fs.rmSync(home, { recursive: true, force: true });
  }
}

await serve(turn, version, concurrency);
