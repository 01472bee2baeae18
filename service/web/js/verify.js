// Checks a log in the browser, trusting no server: the hash chain and the seed commitments
// (docs/fairness.md). The hash must match domain/chain.py byte for byte:
//   SHA-256(canonical JSON of {version, type, schema, data, command_id, ts, prev_hash[, command]})
// with keys sorted by code point, "," and ":" separators and UTF-8 text. JSON.parse would
// turn Python's 120.0 into 120, so logs are read with a parser that keeps each number's text.

export class RawNumber {
  constructor(text) { this.text = text; }
  valueOf() { return Number(this.text); }
  toJSON() { return Number(this.text); }
}

// JSON text to values whose numbers are RawNumbers, as written.
export function parseRaw(text) {
  let at = 0;
  const fail = (what) => { throw new SyntaxError(`${what} at ${at}`); };
  const space = () => { while (" \t\n\r".includes(text[at]) && at < text.length) at += 1; };
  function value() {
    space();
    const c = text[at];
    if (c === "{") return object();
    if (c === "[") return array();
    if (c === '"') return string();
    if (c === "t" && text.startsWith("true", at)) { at += 4; return true; }
    if (c === "f" && text.startsWith("false", at)) { at += 5; return false; }
    if (c === "n" && text.startsWith("null", at)) { at += 4; return null; }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(at, at + 400));
    if (!number) fail("unexpected character");
    at += number[0].length;
    return new RawNumber(number[0]);
  }
  function string() {
    const end = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
    end.lastIndex = at;
    const found = end.exec(text);
    if (!found) fail("bad string");
    at = end.lastIndex;
    return JSON.parse(found[0]);
  }
  function array() {
    at += 1;
    const out = [];
    space();
    if (text[at] === "]") { at += 1; return out; }
    for (;;) {
      out.push(value());
      space();
      if (text[at] === ",") { at += 1; continue; }
      if (text[at] === "]") { at += 1; return out; }
      fail("expected , or ]");
    }
  }
  function object() {
    at += 1;
    const out = {};
    space();
    if (text[at] === "}") { at += 1; return out; }
    for (;;) {
      space();
      if (text[at] !== '"') fail("expected a key");
      const key = string();
      space();
      if (text[at] !== ":") fail("expected :");
      at += 1;
      Object.defineProperty(out, key, {value: value(), enumerable: true, writable: true, configurable: true});
      space();
      if (text[at] === ",") { at += 1; continue; }
      if (text[at] === "}") { at += 1; return out; }
      fail("expected , or }");
    }
  }
  const result = value();
  space();
  if (at !== text.length) fail("trailing text");
  return result;
}

// Python's sort order for keys: by code point (JS's default compares UTF-16 units).
function byCodePoint(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

export function canonical(value) {
  if (value === null || value === true || value === false) return String(value);
  if (value instanceof RawNumber) return value.text;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("NaN and Infinity have no canonical form");
    return String(value);
  }
  if (typeof value === "string") return JSON.stringify(value);  // the same escapes as Python's
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort(byCodePoint);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
}

const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
const bytes = (hexText) => new Uint8Array(hexText.match(/../g).map((pair) => parseInt(pair, 16)));
const subtle = () => {
  if (!globalThis.crypto || !crypto.subtle) throw new Error("WebCrypto needs a secure context (https, or localhost)");
  return crypto.subtle;
};

export async function sha256Hex(data) {
  const input = typeof data === "string" ? new TextEncoder().encode(data) : data;
  return hex(await subtle().digest("SHA-256", input));
}

export async function hmacHex(keyHex, message) {
  const key = await subtle().importKey("raw", bytes(keyHex), {name: "HMAC", hash: "SHA-256"}, false, ["sign"]);
  return hex(await subtle().sign("HMAC", key, message));
}

// The hash domain/chain.py computes for one record (as parsed by parseRaw).
export function eventHash(record) {
  const body = {version: record.version, type: record.type, schema: record.schema, data: record.data,
    command_id: record.command_id ?? null, ts: record.ts, prev_hash: record.prev_hash};
  if (record.command !== null && record.command !== undefined) body.command = record.command;
  return sha256Hex(canonical(body));
}

const GENESIS = "0".repeat(64);
const num = (value) => (value instanceof RawNumber ? Number(value.text) : value);

function check(name) {
  return {name, ok: true, checked: 0, first_failure: null, notes: [],
    fail(version, reason) { if (this.ok) { this.ok = false; this.first_failure = {version, reason}; } }};
}

export async function checkChain(records) {
  const result = check("hash_chain");
  let previous = GENESIS;
  for (const [index, record] of records.entries()) {
    result.checked += 1;
    const version = num(record.version);
    if (version !== index + 1) { result.fail(index + 1, `expected version ${index + 1}, found ${version}`); break; }
    if (record.prev_hash !== previous) { result.fail(version, "prev_hash is not the previous event's hash"); break; }
    if (record.redacted) {
      if (!result.notes.length) result.notes.push(`from version ${version}: redacted events link but cannot be re-hashed`);
    } else if (await eventHash(record) !== record.hash) {
      result.fail(version, "the event's hash does not match its content"); break;
    }
    previous = record.hash;
  }
  return result;
}

const utf8 = (text) => new TextEncoder().encode(text);

// hand_seed(n) = HMAC-SHA256(match_seed, "hand:" + n + (0x1F + entropy_i)...)
function handMessage(hand, entropy) {
  const parts = [utf8(`hand:${hand}`), ...entropy.flatMap((e) => [new Uint8Array([0x1f]), utf8(e)])];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((offset, part) => { out.set(part, offset); return offset + part.length; }, 0);
  return out;
}

export async function checkCommitments(records) {
  const result = check("commitments");
  const deals = new Map();
  const revealed = new Map();
  let matchCommitment = null;
  let entropy = [];
  for (const record of records) {
    const version = num(record.version);
    const data = record.data || {};
    if (record.type === "SeedCommitted") { matchCommitment = data.seed_commitment; entropy = data.entropy || []; }
    if (record.type === "HandDealt") {
      const hand = num(data.hand_number);
      deals.set(hand, data);
      if (!data.commitment) { result.notes.push(`hand ${hand}: no commitment`); continue; }
      if (!data.seed) { result.notes.push(`hand ${hand}: seed not revealed to this viewer yet`); continue; }
      result.checked += 1;
      if (await sha256Hex(bytes(data.seed)) !== data.commitment) result.fail(version, `hand ${hand}: the seed does not match its commitment`);
    }
    if (record.type === "SeedRevealed") {
      const hand = num(data.hand_number);
      result.checked += 1;
      revealed.set(hand, data.seed);
      const deal = deals.get(hand);
      if (!deal) result.fail(version, `hand ${hand}'s seed revealed, never dealt`);
      else if (deal.commitment && await sha256Hex(bytes(data.seed)) !== deal.commitment) {
        result.fail(version, `the seed revealed for hand ${hand} is not the one committed to`);
      }
    }
    if (record.type === "MatchSeedRevealed") {
      result.checked += 1;
      if (!matchCommitment || await sha256Hex(bytes(data.seed)) !== matchCommitment) {
        result.fail(version, "the match seed does not match its commitment");
        continue;
      }
      for (const [hand, seed] of revealed) {
        result.checked += 1;
        if (await hmacHex(data.seed, handMessage(hand, entropy)) !== seed) {
          result.fail(version, `hand ${hand}'s seed does not derive from the match seed`);
        }
      }
    }
  }
  if (!records.some((r) => r.type === "MatchSeedRevealed")) result.notes.push("the match seed is not revealed yet");
  return result;
}

// Each NDJSON line as the app reads it (plain JSON) and as the hash reads it (raw numbers).
export function readNdjson(text) {
  return text.split("\n").filter((line) => line.trim()).map((line) => parseRaw(line));
}
