// LangChain JS (`@langchain/openai` ChatOpenAI + `@langchain/core` tools): one bound model call per request.
//
//   node runner.mjs MODULES_DIR VERSION [CONCURRENCY]
//
// Makes one tool per key named KEY, binds them with bindTools(tools, {tool_choice}) (forcing a key when asked), and
// invokes the model once against the capture server. The model's tool calls are then run as LangGraph's ToolNode
// runs them (not installed here): the tool whose `name` is the called name. VERSION (the `@langchain/openai`
// release) picks the era's API:
//   bindTools    from 0.0.28; before, the same tools and tool_choice go in as call options, bind({tools, tool_choice})
//   tool_choice  the key as a string from 0.2.4 (formatToOpenAIToolChoice); before, a string went out as given, so
//                the key is forced in the form those releases document: {type: 'function', function: {name: KEY}}
// and by what the installed `@langchain/core` exports: tool() where it has it, else a DynamicStructuredTool, else
// (core 0.0.x) a StructuredTool subclass; the reply's tool calls from `message.tool_calls`, or where that is empty
// (a core that has the field beside a ChatOpenAI that does not fill it) from the raw `additional_kwargs.tool_calls`.

import { atLeast, load, serve } from '../../harness/lines.mjs';

const [modulesDir, version, concurrency] = process.argv.slice(2);
const { ChatOpenAI } = await load(modulesDir, '@langchain/openai');
const { tool, DynamicStructuredTool, StructuredTool } = await load(modulesDir, '@langchain/core/tools');
const { z } = await load(modulesDir, 'zod');
const KEY = 'sk-probe-not-a-secret';

function probeTool(key, log) {
  const func = async (args) => { log.push({ key, args }); return 'tempC=20'; };
  const fields = { name: key, description: `probe tool ${key}`, schema: z.object({ city: z.string().optional() }) };
  if (tool) return tool(func, fields);
  if (DynamicStructuredTool) return new DynamicStructuredTool({ ...fields, func });
  return Object.assign(new (class extends StructuredTool { _call(args) { return func(args); } })(), fields);
}

function forcing(key) {
  if (key == null) return {};
  return { tool_choice: atLeast(version, '0.2.4') ? key : { type: 'function', function: { name: key } } };
}

function toolCalls(message) {
  if (message.tool_calls?.length) return message.tool_calls;
  return (message.additional_kwargs?.tool_calls ?? []).map((call) => ({
    name: call.function.name, args: JSON.parse(call.function.arguments || '{}'),
  }));
}

async function turn(request, log) {
  // `modelName` and `openAIApiKey` are the names before 0.0.2x's `model` and `apiKey`; each release reads its own.
  const model = new ChatOpenAI({
    model: 'gpt-4o-mini', modelName: 'gpt-4o-mini', apiKey: KEY, openAIApiKey: KEY, maxRetries: 0,
    configuration: { baseURL: request.url },
  });
  const tools = request.keys.map((key) => probeTool(key, log));
  const bound = atLeast(version, '0.0.28')
    ? model.bindTools(tools, forcing(request.toolChoice))
    : model.bind({ tools, ...forcing(request.toolChoice) });
  const message = await bound.invoke('hi');
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const call of toolCalls(message)) {
    if (!byName.has(call.name)) throw new Error(`Tool "${call.name}" not found.`);
    await byName.get(call.name).invoke(call.args);
  }
}

await serve(turn, version, concurrency);
