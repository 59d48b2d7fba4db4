// The Vercel AI SDK (`ai` generateText + `@ai-sdk/openai-compatible`), one turn per request.
//
//   node runner.mjs MODULES_DIR VERSION [CONCURRENCY]
//
// Registers one tool per key in the `tools` record (the key is the tool's only name), forces one by its key with
// toolChoice {type: 'tool', toolName: KEY} when asked, and runs generateText against the capture server.

import { load, serve } from '../../harness/lines.mjs';

const [modulesDir, version, concurrency] = process.argv.slice(2);
const { generateText, tool } = await load(modulesDir, 'ai');
const { createOpenAICompatible } = await load(modulesDir, '@ai-sdk/openai-compatible');
const { z } = await load(modulesDir, 'zod');

async function turn(request, log) {
  const provider = createOpenAICompatible({ name: 'probe', baseURL: request.url, apiKey: 'sk-probe-not-a-secret' });
  const tools = Object.fromEntries(request.keys.map((key) => [key, tool({
    description: `probe tool ${key}`,
    inputSchema: z.object({ city: z.string().optional() }),
    execute: async (args) => { log.push({ key, args }); return { tempC: 20 }; },
  })]));
  const options = { model: provider.chatModel('gpt-4o-mini'), prompt: 'hi', tools, maxRetries: 0 };
  if (request.toolChoice != null) options.toolChoice = { type: 'tool', toolName: request.toolChoice };
  await generateText(options);
}

await serve(turn, version, concurrency);
