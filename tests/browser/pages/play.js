// Plays one gin match against the API on another origin, as a third-party front end would.
// The outcome goes to window.result for the test to read.
const api = new URLSearchParams(location.search).get("api");
const logLine = (text) => { document.getElementById("log").textContent += text + "\n"; };
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function call(method, path, token, body) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(api + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  const text = await response.text();
  return {status: response.status, body: text ? JSON.parse(text) : null};
}

// The event types a gin stream carries (docs/events.md), and unnamed messages too.
const TYPES = ["MatchCreated", "HandDealt", "CardDrawn", "CardDiscarded", "HandEnded",
  "HandScored", "MatchCompleted", "UpcardPassed", "HandKnocked", "MeldsLaidDown", "CardLaidOff",
  "JokerExchanged", "StockRebuilt", "SeedCommitted", "SeedRevealed", "MatchSeedRevealed",
  "ClockSet", "SeatForfeited", "MatchAborted"];

function follow(url, received, stream) {
  const source = new EventSource(url);
  source.onopen = () => { stream.opens += 1; };
  source.onerror = () => { stream.errors += 1; };
  const keep = (message) => {
    received.push({id: message.lastEventId, type: message.type, event: JSON.parse(message.data)});
  };
  source.onmessage = keep;
  TYPES.forEach((type) => source.addEventListener(type, keep));
  return source;
}

// Knocks only once both seats have drawn from the stock, so the stream always carries
// the other seat's stock draw (which must come without its card).
function choose(actions, view, mayKnock) {
  const byType = (type) => actions.filter((action) => action.type === type);
  for (const type of ["big_gin", "knock"]) {
    if (mayKnock && byType(type).length) return byType(type)[0];
  }
  if (byType("pass").length) return byType("pass")[0];
  const stock = actions.find((a) => a.type === "draw" && a.source === "stock");
  if (stock) return stock;
  const discards = byType("discard");
  const best = view.best_discard && view.best_discard.cards || [];
  return discards.find((action) => best.includes(action.card)) || discards[0] || actions[0];
}

async function play() {
  const created = await call("POST", "/v1/matches", null, {
    variant: "gin", players: [{open: true}, {name: "Bob"}], options: {target: 1}});
  const id = created.body.id;
  const bob = created.body.seats[1].token;
  const claimed = await call("POST", `/v1/matches/${id}/seats/0/claim`, null, {name: "Ann"});
  const ann = claimed.body.token;
  const firstView = await call("GET", `/v1/matches/${id}`, ann);
  logLine(`match ${id}: claimed seat 0 (${claimed.status}), view ${firstView.status}`);

  const {body: {ticket}} = await call("POST", `/v1/matches/${id}/stream-tickets`, ann);
  const received = [];
  const stream = {opens: 0, errors: 0};
  const source = follow(`${api}/v1/matches/${id}/stream?ticket=${ticket}`, received, stream);

  const tokens = [ann, bob];
  const statuses = {};
  const stockDraws = [0, 0];
  let actions = 0;
  for (let polls = 0; polls < 5000; polls += 1) {
    const table = (await call("GET", `/v1/matches/${id}`)).body;
    if (table.phase === "complete") break;
    if (table.turn === null) { await sleep(20); continue; }
    const token = tokens[table.turn];
    const view = (await call("GET", `/v1/matches/${id}`, token)).body;
    if (!view.legal_actions || !view.legal_actions.length) { await sleep(20); continue; }
    const action = choose(view.legal_actions, view, stockDraws[0] > 0 && stockDraws[1] > 0);
    const answer = await call("POST", `/v1/matches/${id}/actions`, token, action);
    if (answer.status === 200 && action.type === "draw" && action.source === "stock") {
      stockDraws[table.turn] += 1;
    }
    statuses[answer.status] = (statuses[answer.status] || 0) + 1;
    actions += 1;
  }
  const lastView = (await call("GET", `/v1/matches/${id}`, ann)).body;
  logLine(`played ${actions} actions; phase ${lastView.phase}`);

  for (let waited = 0; waited < 200 && !received.some((r) => r.type === "MatchCompleted");
       waited += 1) {
    await sleep(50);
  }
  // The stream ends after MatchCompleted; EventSource reconnects once (retry: 2000), gets
  // 204 and must then stay closed.
  await sleep(4500);
  const annEvents = (await call("GET", `/v1/matches/${id}/events`, ann)).body.events;
  window.result = {
    id, ann, claimStatus: claimed.status, createStatus: created.status,
    firstView: firstView.body, lastView, statuses, actions, received, annEvents,
    readyState: source.readyState, opens: stream.opens, errors: stream.errors,
  };
  logLine(`done: ${received.length} events live, EventSource readyState ${source.readyState}`);
}

play().catch((error) => { window.result = {error: String(error && error.stack || error)}; });
