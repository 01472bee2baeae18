// The live move log beside a table: each move of the hand in words, newest last ("Basic bot
// took 7♠ from the discard pile", "You drew 4♦"). It is told from the events this viewer's
// stream and log carry, which the server has already redacted for it; on top of that a card
// drawn from the stock is named only for the viewer's own seat, so a hand's events made
// public once its seed is revealed never name another seat's draw either.
import {h} from "./dom.js";
import {label} from "./cards.js";

const RESULTS = {knock: "a knock", gin: "gin", big_gin: "big gin", undercut: "an undercut", tie: "a tie",
  draw: "a draw", out: "a player out", void: "a void round"};
const REASONS = {stock_exhausted: "the stock ran out", turn_cap: "the turn limit was reached", out: "a player went out"};

const rummyFamily = (variant) => variant === "rummy" || variant === "rami";

// One event in words: a list of parts, each a string or {card} (a card named face up), or
// null for an event that moves nothing on the table (a seed, a clock, the bot seats).
// `table`: {names, viewer (the viewer's seat, or null), variant}.
export function told(event, {names = [], viewer = null, variant = null} = {}) {
  const d = event.data || {};
  const who = (seat) => (seat === viewer ? "You" : names[seat] || `Seat ${seat}`);
  const whom = (seat) => (seat === viewer ? "you" : names[seat] || `seat ${seat}`);
  const each = (codes) => (codes || []).flatMap((code, i) => (i ? [" ", {card: code}] : [{card: code}]));
  switch (event.type) {
    case "HandDealt":
      return [`${rummyFamily(variant) ? "Round" : "Hand"} ${d.hand_number} dealt by ${whom(d.dealer)}`,
        ...(d.upcard ? ["; the upcard is ", {card: d.upcard}] : [])];
    case "UpcardPassed": return [`${who(d.seat)} passed the upcard`];
    case "CardDrawn":
      if (d.source === "stock") {
        return d.seat === viewer && d.card ? ["You drew ", {card: d.card}] : [`${who(d.seat)} drew from the stock`];
      }
      if (d.cards && d.cards.length > 1) return [`${who(d.seat)} took `, ...each(d.cards), " from the discard pile"];
      return d.card ? [`${who(d.seat)} took `, {card: d.card}, " from the discard pile"]
        : [`${who(d.seat)} took the top discard`];
    case "CardDiscarded": return [`${who(d.seat)} discarded `, {card: d.card}];
    case "HandKnocked": return knocked(who(d.seat), d);
    case "MeldsLaidDown":
      return [`${who(d.seat)} laid down `, ...(d.melds || []).flatMap((meld, i) => [i ? " · " : "", ...each(meld.cards)]),
        d.opening ? ` to open (${d.value} points)` : ""];
    case "CardLaidOff":
      return [`${who(d.seat)} laid off `, {card: d.card}, ` on meld #${d.meld}`,
        d.represents && d.represents !== d.card ? ` as ${label(d.represents)}` : ""];
    case "JokerExchanged":
      return [`${who(d.seat)} put `, {card: d.card}, ` in place of the joker of meld #${d.meld} and took the joker`];
    case "StockRebuilt": return [`The stock ran out: the discard pile was shuffled into a new stock of ${d.count} cards`];
    case "HandEnded":
      if (d.result === "out") return [`${who(d.winner)} went out${d.rummy ? ", going rummy" : ""}`];
      return [`The ${rummyFamily(variant) ? "round" : "hand"} ended ${d.result === "void" ? "void" : "in a draw"}: ${REASONS[d.reason] || d.reason}`];
    case "HandScored": return [scored(d, names, variant)];
    case "MatchCompleted": {
      const won = (d.winners || [d.winner]).filter((s) => s !== null && s !== undefined).map(who);
      return [`The match is over: ${won.join(" and ") || "nobody"} won (final ${pointsOf(d.final_scores, names)})`];
    }
    case "SeatForfeited":
      return [`${who(d.seat)} ${d.by === "seat" ? "resigned" : d.by === "clock" ? "ran out of time" : "forfeited"}` +
        `${d.reason ? ` (${d.reason})` : ""}: the match is over`];
    case "MatchAborted": return [`The match was aborted${d.reason ? ` (${d.reason})` : ""}`];
    default: return null;
  }
}

function knocked(who, d) {
  const discard = d.discard ? [", discarding ", {card: d.discard}] : [];
  if (d.kind === "big_gin") return [`${who} declared big gin`];
  if (d.kind === "gin") return [`${who} went gin`, ...discard];
  return [`${who} knocked with ${d.deadwood} deadwood`, ...discard];
}

const pointsOf = (points, names) => (points || []).map((p, seat) => `${names[seat] || `seat ${seat}`} ${p}`).join(", ");

// "Hand 2 over, a knock: Basic bot scores 23" / "Round 1 over: minus points Ann 0, Bob 18".
function scored(d, names, variant) {
  const round = rummyFamily(variant) || d.scores !== undefined;
  const head = `${round ? "Round" : "Hand"} ${d.hand_number} over, ${RESULTS[d.result] || d.result}`;
  if (round) return `${head}${d.rummy ? " (rummy: minus points doubled)" : ""}: minus points ${pointsOf(d.points, names)}`;
  const scorers = (d.points || []).map((p, seat) => [seat, p]).filter(([, p]) => p > 0);
  if (!scorers.length) return `${head}: nobody scores`;
  return `${head}: ${scorers.map(([seat, p]) => `${names[seat] || `seat ${seat}`} scores ${p}`).join(", ")}`;
}

// A told event as plain text (a card by its label), for titles and tests.
export const plain = (parts) => parts.map((part) => (typeof part === "string" ? part : label(part.card))).join("");

// The log's element and what it hears: `hear(event)` takes one event as the stream gives
// it, in order; `catchUp(read)` first tells the log so far (`read()` resolves to the
// events, as /events gives them), holding what the stream brings meanwhile. An event it
// has already told (by version) is skipped, so the two may overlap. `table(view)` keeps
// the seats' names and the viewer's seat current.
export function moveLog() {
  const hands = h("div", {class: "log-hands", role: "log", "aria-live": "polite", "aria-relevant": "additions",
    tabindex: 0, "aria-label": "moves so far"});
  const element = h("aside", {class: "move-log", "aria-labelledby": "move-log-title"},
    h("h3", {id: "move-log-title"}, "Move log"), hands);
  let last = 0;
  let current = null;
  let table = {names: [], viewer: null, variant: null};
  let held = null;

  function section(title, hand) {
    if (current) current.closest("details").open = false;
    current = h("ol", {class: "log-moves"});
    hands.append(h("details", {class: "log-hand", open: true, "data-hand": hand}, h("summary", {}, title), current));
  }

  function tell(event) {
    if (!event || !event.version || event.version <= last) return;
    last = event.version;
    const parts = told(event, table);
    if (!parts) return;
    if (event.type === "HandDealt") {
      section(`${rummyFamily(table.variant) ? "Round" : "Hand"} ${event.data.hand_number}`, event.data.hand_number);
    } else if (!current) section("Before the deal", 0);
    const seat = event.data && event.data.seat;
    current.append(h("li", {class: `log-entry type-${event.type}`, "data-version": event.version,
      "data-type": event.type, "data-seat": seat ?? null, "data-mine": seat !== undefined && seat === table.viewer ? "1" : null},
    parts.map((part) => (typeof part === "string" ? part : cardMark(part.card)))));
    hands.scrollTop = hands.scrollHeight;
  }

  function hear(event) {
    if (held) held.push(event);
    else tell(event);
  }

  async function catchUp(read) {
    held = [];
    try {
      (await read()).forEach(tell);
    } catch {
      // the stream still tells every move from here on
    } finally {
      const heard = held;
      held = null;
      heard.forEach(tell);
    }
  }

  return {
    element,
    hear,
    catchUp,
    table: (view) => {
      table = {names: view.seats.map((seat) => seat.name), viewer: view.seat ?? null, variant: view.variant};
    },
  };
}

// A card named in the log, marked so it stands out from the words around it.
function cardMark(code) {
  const red = code[1] === "D" || code[1] === "H";
  return h("mark", {class: `log-card${red ? " red" : ""}`, "data-card": code}, label(code));
}
