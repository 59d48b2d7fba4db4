// LangChain JS (`@langchain/openai` ChatOpenAI + `@langchain/core` tools): one bound model call per request.
//
//   node runner.mjs MODULES_DIR VERSION [CONCURRENCY]
//
// Makes one tool per key with tool(fn, {name: KEY}), binds them with bindTools(tools, {tool_choice: KEY}) when a
// key is forced, and invokes the model once against the capture server. The model's tool calls are then run as
// LangGraph's ToolNode runs them (not installed here): the tool whose `name` is the called name.

import { load, serve } from '../../harness/lines.mjs';

const [modulesDir, version, concurrency] = process.argv.slice(2);
const { ChatOpenAI } = await load(modulesDir, '@langchain/openai');
const { tool } = await load(modulesDir, '@langchain/core/tools');
const { z } = await load(modulesDir, 'zod');

async function turn(request, log) {
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini', apiKey: 'sk-probe-not-a-secret', maxRetries: 0, configuration: { baseURL: request.url },
  });
  const tools = request.keys.map((key) => tool(async (args) => { log.push({ key, args }); return 'tempC=20'; }, {
    name: key, description: `probe tool ${key}`, schema: z.object({ city: z.string().optional() }),
  }));
  const options = request.toolChoice != null ? { tool_choice: request.toolChoice } : {};
  const message = await model.bindTools(tools, options).invoke('hi');
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const call of message.tool_calls ?? []) {
    if (!byName.has(call.name)) throw new Error(`Tool "${call.name}" not found.`);
    await byName.get(call.name).invoke(call.args);
  }
}

await serve(turn, version, concurrency);
