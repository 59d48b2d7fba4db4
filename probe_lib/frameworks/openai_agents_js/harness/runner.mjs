// OpenAI Agents JS (`@openai/agents`): an Agent with one function tool per key, run for one turn.
//
//   node runner.mjs MODULES_DIR VERSION [CONCURRENCY]
//
// Each tool is made by tool({name: KEY}); when asked, the agent forces one by its key (modelSettings.toolChoice =
// KEY). Request field `api` picks the provider's path: "responses" (its default) or "chat" (Chat Completions).

import { load, serve } from '../../harness/lines.mjs';

const [modulesDir, version, concurrency] = process.argv.slice(2);
const { Agent, Runner, OpenAIProvider, tool } = await load(modulesDir, '@openai/agents');
const { z } = await load(modulesDir, 'zod');

async function turn(request, log) {
  const tools = request.keys.map((key) => tool({
    name: key,
    description: `probe tool ${key}`,
    parameters: z.object({ city: z.string().nullable() }),
    execute: async (args) => { log.push({ key, args }); return 'tempC=20'; },
  }));
  const modelSettings = request.toolChoice != null ? { toolChoice: request.toolChoice } : {};
  const agent = new Agent({ name: 'probe', instructions: 'p', model: 'gpt-4o-mini', tools, modelSettings });
  const modelProvider = new OpenAIProvider({
    baseURL: request.url, apiKey: 'sk-probe-not-a-secret', useResponses: request.api !== 'chat',
  });
  const runner = new Runner({ modelProvider, tracingDisabled: true });
  await runner.run(agent, 'hi', { maxTurns: request.maxSteps ?? 1 });
}

await serve(turn, version, concurrency);
