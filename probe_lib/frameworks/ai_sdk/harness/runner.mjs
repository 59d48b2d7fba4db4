// The Vercel AI SDK (`ai` generateText + an OpenAI-compatible provider), one turn per request.
//
//   node runner.mjs MODULES_DIR VERSION [CONCURRENCY]
//
// Registers one tool per key in the `tools` record (the key is the tool's only name), forces one by its key with
// toolChoice {type: 'tool', toolName: KEY} when asked, and runs generateText against the capture server. VERSION
// (the `ai` release) picks the era's API (the adapter refuses releases before 3.1, ai_sdk/__init__.py):
//   3.1 to 3.4  the provider is `@ai-sdk/openai`'s createOpenAI in its 'compatible' mode (`@ai-sdk/openai-compatible`
//               starts with ai 4); toolChoice from 3.1.16; more than one step by maxAutomaticRoundtrips (3.1.20),
//               maxToolRoundtrips (3.1.23) or maxSteps (3.3.40), whichever the release reads
//   4.x         `@ai-sdk/openai-compatible`; tools take `parameters`, steps `maxSteps`
//   5.x on      tools take `inputSchema`, steps `stopWhen: stepCountIs(n)`

import { atLeast, load, serve } from '../../harness/lines.mjs';

const [modulesDir, version, concurrency] = process.argv.slice(2);
const ai = await load(modulesDir, 'ai');
const { z } = await load(modulesDir, 'zod');
const schemaKey = atLeast(version, '5.0.0') ? 'inputSchema' : 'parameters';
const chatModel = atLeast(version, '4.0.0') ? await compatibleModel() : await openAIModel();

async function compatibleModel() {
  const { createOpenAICompatible } = await load(modulesDir, '@ai-sdk/openai-compatible');
  return (url) => createOpenAICompatible({ name: 'probe', baseURL: url, apiKey: 'sk-probe-not-a-secret' }).chatModel('gpt-4o-mini');
}

async function openAIModel() {
  const { createOpenAI } = await load(modulesDir, '@ai-sdk/openai');
  return (url) => createOpenAI({ baseURL: url, apiKey: 'sk-probe-not-a-secret', compatibility: 'compatible' }).chat('gpt-4o-mini');
}

// generateText's options for `steps` model calls (one, the default, sets nothing).
function stepOptions(steps) {
  if (steps <= 1) return {};
  if (atLeast(version, '5.0.0')) return { stopWhen: ai.stepCountIs(steps) };
  if (atLeast(version, '4.0.0')) return { maxSteps: steps };
  if (!atLeast(version, '3.1.20')) throw new Error(`ai ${version} makes one model call per turn (several from 3.1.20)`);
  return { maxSteps: steps, maxToolRoundtrips: steps - 1, maxAutomaticRoundtrips: steps - 1 };
}

async function turn(request, log) {
  const tools = Object.fromEntries(request.keys.map((key) => [key, ai.tool({
    description: `probe tool ${key}`,
    [schemaKey]: z.object({ city: z.string().optional() }),
    execute: async (args) => { log.push({ key, args }); return { tempC: 20 }; },
  })]));
  const options = { model: chatModel(request.url), prompt: 'hi', tools, maxRetries: 0, ...stepOptions(request.maxSteps ?? 1) };
  if (request.toolChoice != null) options.toolChoice = { type: 'tool', toolName: request.toolChoice };
  await ai.generateText(options);
}

await serve(turn, version, concurrency);
