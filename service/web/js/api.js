// The API client: JSON calls with a bearer token, and live streams through stream tickets
// (EventSource cannot send a token, and a long-lived token never goes into a URL).

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? `${body.code}: ${body.message}` : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    this.detail = body && body.message;  // the server's words, without the code
  }
}

// How long a call may wait for the server's whole answer. A request that gets no answer
// must fail like any other failed read (a no-status error the caller retries), or a page
// would wait on it for good, showing a table that moved on long ago.
export const ANSWER_TIMEOUT_MS = 8000;
// An uploaded log is checked before it is answered: it gets longer.
const AUDIT_TIMEOUT_MS = 60000;

// No answer in time: a failure with no status, as the network's own TypeError.
export class NoAnswer extends Error {
  constructor(ms) {
    super(`The server did not answer within ${Math.round(ms / 1000)} s.`);
    this.name = "NoAnswer";
    this.status = undefined;
  }
}

export async function call(method, path, {token, body, headers = {}, raw, timeout = ANSWER_TIMEOUT_MS} = {}) {
  const sent = {...headers};
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined && raw === undefined) sent["Content-Type"] = "application/json";
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  let response;
  let text;
  try {
    response = await fetch(path, {method, headers: sent, signal: controller.signal,
      body: raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body)});
    text = await response.text();
  } catch (error) {
    throw controller.signal.aborted ? new NoAnswer(timeout) : error;
  } finally {
    clearTimeout(timer);
  }
  const parsed = text && (response.headers.get("Content-Type") || "").includes("json") ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, parsed);
  return {status: response.status, body: parsed, text, headers: response.headers};
}

const match = (id) => `/v1/matches/${encodeURIComponent(id)}`;
const tournament = (id) => `/v1/tournaments/${encodeURIComponent(id)}`;

// The largest log POST /v1/audits reads (MAX_LOG_BYTES, service/usecases/log_upload.py):
// a larger file is not sent at all. The server refuses it unread and closes the
// connection, which a browser may report as a network error rather than the 413.
export const AUDIT_MAX_BYTES = 6 * 1024 * 1024;

export const api = {
  variants: async () => (await call("GET", "/v1/variants")).body.variants,
  lobby: async (variant) => (await call("GET", `/v1/lobby${variant ? `?variant=${variant}` : ""}`)).body,
  create: async (body) => (await call("POST", "/v1/matches", {body})).body,
  claim: async (id, seat, body) => (await call("POST", `${match(id)}/seats/${seat}/claim`, {body})).body,
  view: async (id, token) => (await call("GET", match(id), {token})).body,
  act: async (id, token, action, version) => (await call("POST", `${match(id)}/actions`, {
    token, body: action, headers: {"If-Match": String(version)}})).body,
  // The log's raw text too: the hash chain is checked over the numbers as the server wrote them.
  events: async (id) => (await call("GET", `${match(id)}/events`)).text,
  // The log as this viewer may see it (a seat's own cards with its token), for the move log.
  log: async (id, token) => (await call("GET", `${match(id)}/events`, {token})).body.events,
  state: async (id, at) => (await call("GET", `${match(id)}/state?at=${at}`)).body,
  check: async (id, token, action) => (await call("POST", `${match(id)}/actions/check`, {token, body: action})).body,
  resign: async (id, token) => (await call("POST", `${match(id)}/resign`, {token, body: {}})).body,
  leave: async (id, seat, token) => (await call("POST", `${match(id)}/seats/${seat}/leave`, {token})).body,
  abort: async (id, token, reason) => (await call("POST", `${match(id)}/abort`, {token, body: {reason}})).body,
  rematch: async (id, token) => (await call("POST", `${match(id)}/rematch`, {token})).body,
  rematchState: async (id, token) => (await call("GET", `${match(id)}/rematch`, {token})).body,
  declineRematch: async (id, token) => (await call("DELETE", `${match(id)}/rematch`, {token})).body,
  // A finished match's analysis: where to read it (its Location), then the reading.
  analyse: async (id, token, body) => (await call("POST", `${match(id)}/analyses`, {token, body})).headers.get("Location"),
  analysis: async (location, token) => (await call("GET", location, {token})).body,
  ticket: async (id, token) => (await call("POST", `${match(id)}/stream-tickets`, {token})).body.ticket,
  verify: async (id) => (await call("POST", `${match(id)}/verifications`)).headers.get("Location"),
  verification: async (location) => (await call("GET", location)).body,
  audit: async (ndjson) => (await call("POST", "/v1/audits?states=true", {timeout: AUDIT_TIMEOUT_MS,
    raw: ndjson, body: null, headers: {"Content-Type": "application/x-ndjson"}})).body,
  // A tournament, one of its rounds, and (with an entrant's player token) that entrant.
  tournament: async (id) => (await call("GET", tournament(id))).body,
  round: async (id, number) => (await call("GET", `${tournament(id)}/rounds/${number}`)).body,
  me: async (id, token) => (await call("GET", `${tournament(id)}/me`, {token})).body,
  // Tournaments open for entry (newest first), entering one (the answer carries the new
  // entrant's player token, shown this once) and leaving it with that token.
  openTournaments: async ({variant, limit, cursor} = {}) => {
    const query = new URLSearchParams();
    if (variant) query.set("variant", variant);
    if (limit) query.set("limit", String(limit));
    if (cursor) query.set("cursor", cursor);
    const text = query.toString();
    return (await call("GET", `/v1/lobby/tournaments${text ? `?${text}` : ""}`)).body;
  },
  join: async (id, name) => (await call("POST", `${tournament(id)}/join`, {body: {name}})).body,
  leaveTournament: async (id, token) => (await call("POST", `${tournament(id)}/leave`, {token})).body,
};

// The event types a stream names (docs/events.md); unnamed messages are heard too.
const EVENT_TYPES = ["MatchCreated", "HandDealt", "CardDrawn", "CardDiscarded", "HandEnded",
  "HandScored", "MatchCompleted", "UpcardPassed", "HandKnocked", "MeldsLaidDown", "CardLaidOff",
  "JokerExchanged", "StockRebuilt", "SeedCommitted", "SeedRevealed", "MatchSeedRevealed",
  "ClockSet", "BotsSeated", "SeatForfeited", "MatchAborted", "presence"];
export const FINAL_EVENTS = new Set(["MatchCompleted", "SeatForfeited", "MatchAborted"]);

// Follows a match live from event `after` on. A seat trades its token for a single-use ticket
// per connection; on an error it reconnects with a new ticket after the last id seen, unless
// the match is over (`isOver` asks the server), which also covers the 204 that ends a stream.
// The server's `end` event (the match is over, or this seat's token was rotated) stops it for
// good: reconnecting with a rotated token would only collect 401s. `onState` hears "open"
// each time the stream (re)connects and "lost" each time it drops.
export function follow(id, {token = null, after = 0, onEvent, isOver, onState = () => {}}) {
  let source = null;
  let stopped = false;
  let last = after;
  let delay = 500;
  let sawEnd = false;

  const receive = (message) => {
    if (message.lastEventId) last = Number(message.lastEventId);
    if (FINAL_EVENTS.has(message.type)) sawEnd = true;
    delay = 500;
    onEvent(message.type, message.data ? JSON.parse(message.data) : null);
  };

  async function open() {
    if (stopped) return;
    const query = new URLSearchParams({after: String(last)});
    if (token) query.set("ticket", await api.ticket(id, token));
    if (stopped) return;
    source = new EventSource(`${match(id)}/stream?${query}`);
    source.onopen = () => onState("open");
    source.onmessage = receive;
    EVENT_TYPES.forEach((type) => source.addEventListener(type, receive));
    source.addEventListener("end", (message) => { stop(); onEvent("end", JSON.parse(message.data)); });
    source.onerror = () => { source.close(); source = null; onState("lost"); reconnect(); };
  }

  async function reconnect() {
    if (stopped) return;
    if (sawEnd || await isOver().catch(() => false)) { stop(); return; }
    setTimeout(() => open().catch(() => { onState("lost"); reconnect(); }), delay);
    delay = Math.min(delay * 2, 10000);
  }

  function stop() {
    stopped = true;
    if (source) source.close();
  }

  open().catch(() => { onState("lost"); reconnect(); });
  return {stop, get connected() { return source !== null && source.readyState === 1; }};
}
