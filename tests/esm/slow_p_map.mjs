// Node.js module hooks for a test: p-map's ES module takes two seconds to load, so an import() of it stays in flight
// long enough for another turn to meet it (tests/test_runner_faults.py).
export async function load(url, context, nextLoad) {
  if (url.includes('/node_modules/p-map/')) await new Promise((resolve) => setTimeout(resolve, 2000));
  return nextLoad(url, context);
}
