'use strict';
/**
 * A boundary normaliser: give every tool key a provider-legal, unique name before it reaches Mastra.
 *
 * The same algorithm as probe_lib/frameworks/mastra/remedy.py (whose docstring states it in full); a Python test runs
 * both on the same keys and requires identical mappings. No dependencies, so it can be copied into an app as it is.
 *
 *   const { renameTools, applyToToolChoice, applyToActiveTools } = require('./remedy.cjs');
 *   const { tools, mapping } = renameTools({ 'search.web': searchTool });
 *   agent.generate(prompt, { toolChoice: applyToToolChoice({ type: 'tool', toolName: 'search.web' }, mapping) });
 */

/** formatTools cuts rewritten names to this many UTF-16 units; names it leaves alone are at most this long. */
const MAX_NAME_LENGTH = 63;
/** Room for '_' + 8 hex digits and at least one character before it. */
const MIN_MAX_LENGTH = 10;
const SUFFIX_LENGTH = 9;
/** Names Object.prototype carries: a tool under one collides or (for __proto__) vanishes. */
const INHERITED_NAMES = new Set([
  '__proto__', '__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__',
]);

const LEGAL_CHAR = /^[a-zA-Z0-9_-]$/;
const LEGAL_FIRST = /^[a-zA-Z_]/;

/** FNV-1a (32 bits) of the string's UTF-16LE bytes, as 8 hex digits. */
function fnv1a32(text) {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    value = Math.imul(value ^ (unit & 0xff), 0x01000193) >>> 0;
    value = Math.imul(value ^ (unit >>> 8), 0x01000193) >>> 0;
  }
  return value.toString(16).padStart(8, '0');
}

/** The key with each illegal code point replaced by '_' and a legal first character ensured, before the cut. */
function uncut(key) {
  let name = '';
  for (const char of key) name += LEGAL_CHAR.test(char) ? char : '_';
  return LEGAL_FIRST.test(name) ? name : `_${name}`;
}

/** The legal name a key maps to before uniqueness is considered. */
function candidate(key, maxLength = MAX_NAME_LENGTH) {
  return uncut(key).slice(0, maxLength);
}

/** Order by UTF-16 code units (what Array.prototype.sort does by default, spelled out). */
function utf16Order(a, b) {
  if (a < b) return -1;
  return a > b ? 1 : 0;
}

/**
 * Map each key to a unique name that every a-zA-Z0-9_- provider and formatTools accept unchanged.
 * Returns a Map from key to safe name, in the order of `keys`.
 */
function safeToolNames(keys, maxLength = MAX_NAME_LENGTH) {
  const list = Array.from(keys);
  if (!(maxLength >= MIN_MAX_LENGTH)) {
    throw new RangeError(`maxLength ${maxLength} leaves no room for a hash suffix; use at least ${MIN_MAX_LENGTH}`);
  }
  if (new Set(list).size !== list.length) {
    const repeated = list.find((key, index) => list.indexOf(key) !== index);
    throw new Error(`key ${JSON.stringify(repeated)} appears twice; a tools record holds each key once`);
  }

  const full = new Map(list.map((key) => [key, uncut(key)]));
  const candidates = new Map(list.map((key) => [key, full.get(key).slice(0, maxLength)]));
  const shared = new Map();
  for (const name of candidates.values()) shared.set(name, (shared.get(name) || 0) + 1);

  const names = new Map();
  for (const [key, name] of candidates) {
    const unique = shared.get(name) === 1 || name === key;
    if (unique && full.get(key).length <= maxLength && !INHERITED_NAMES.has(name)) names.set(key, name);
  }

  const taken = new Set(names.values());
  const rest = list.filter((key) => !names.has(key)).sort(utf16Order);
  for (const key of rest) {
    const stem = candidates.get(key).slice(0, maxLength - SUFFIX_LENGTH);
    let attempt = 0;
    let name;
    for (;;) {
      name = `${stem}_${fnv1a32(attempt === 0 ? key : `${key}\0${attempt}`)}`;
      if (!taken.has(name)) break;
      attempt += 1;
    }
    names.set(key, name);
    taken.add(name);
  }
  return new Map(list.map((key) => [key, names.get(key)]));
}

/** A tools record under safe keys, and the Map from old key to safe key. */
function renameTools(tools, maxLength = MAX_NAME_LENGTH) {
  const mapping = safeToolNames(Object.keys(tools), maxLength);
  const renamed = {};
  for (const [key, name] of mapping) renamed[name] = tools[key];
  return { tools: renamed, mapping };
}

function safeName(name, mapping) {
  if (mapping.has(name)) return mapping.get(name);
  for (const value of mapping.values()) if (value === name) return name;
  throw new Error(`tool ${JSON.stringify(name)} is not one of the renamed keys; register it first, or pass the mapping that has it`);
}

/** toolChoice with a named tool ({ type: 'tool', toolName }) renamed; 'auto', 'none', 'required' unchanged. */
function applyToToolChoice(choice, mapping) {
  if (choice && typeof choice === 'object' && choice.type === 'tool' && typeof choice.toolName === 'string') {
    return { ...choice, toolName: safeName(choice.toolName, mapping) };
  }
  return choice;
}

/** An activeTools list with each key renamed. */
function applyToActiveTools(active, mapping) {
  return Array.from(active, (name) => safeName(name, mapping));
}

module.exports = {
  MAX_NAME_LENGTH,
  MIN_MAX_LENGTH,
  INHERITED_NAMES,
  fnv1a32,
  candidate,
  safeToolNames,
  renameTools,
  applyToToolChoice,
  applyToActiveTools,
};
