'use strict';
// What every Node runner writes on the JSON-lines protocol of probe_lib/process/lines.py, in one place: the
// result line, a JSON-safe copy of any value, and an error's cause chain. CommonJS, so that Mastra's runner.cjs can
// require() it and lines.mjs (every other Node framework) can import it.

const RESULT_MARK = '\u001eRESULT ';

// One result line: RESULT_MARK keeps anything the framework itself prints from being taken for a result.
function emit(result) {
  process.stdout.write(RESULT_MARK + JSON.stringify(result) + '\n');
}

// JSON-safe copy of anything (errors, parsed tool arguments, results); `undefined` becomes null.
function plain(value) {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
}

// An error and its `cause` chain, outermost first: {name, message} per link, plus what `detail(link)` adds (a
// framework's own error fields, e.g. Mastra's id, domain, category and details).
function describeError(error, detail = null) {
  const chain = [];
  for (let e = error, depth = 0; e && depth < 8; e = e.cause, depth += 1) {
    chain.push({
      name: e?.name ?? e?.constructor?.name ?? typeof e,
      message: typeof e === 'object' ? String(e.message ?? '') : String(e),
      ...(detail ? detail(e) : {}),
    });
  }
  return chain;
}

module.exports = { RESULT_MARK, emit, plain, describeError };
