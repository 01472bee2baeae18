// Each event of a log in words, for the replay's move list: "Bob draws from the stock",
// "Ann knocks with 4 deadwood". Only what the event carries is said: a card another
// seat drew is not in that seat's redacted copy, so it is not named.
import {label} from "./cards.js";

const list = (codes) => (codes || []).map(label).join(" ");
const melds = (groups) => (groups || []).map((m) => list(m.cards || m)).join(" · ");

export function namesOf(events) {
  const created = events.find((e) => e.type === "MatchCreated");
  return created ? created.data.players : [];
}

export function sentence(event, names) {
  const d = event.data || {};
  const who = (seat) => names[seat] || `seat ${seat}`;
  switch (event.type) {
    case "MatchCreated": return `A ${d.variant} match begins: ${(d.players || []).join(", ")}`;
    case "SeedCommitted": return "The server commits to the match's seed";
    case "ClockSet": return `A clock is set: ${d.turn_seconds ? `${d.turn_seconds} s a turn` : "no turn limit"}` +
      `${d.bank_seconds ? `, ${d.bank_seconds} s bank` : ""}`;
    case "HandDealt": return `Hand ${d.hand_number} is dealt by ${who(d.dealer)}` +
      (d.upcard ? `; the upcard is ${label(d.upcard)}` : "");
    case "UpcardPassed": return `${who(d.seat)} passes the upcard`;
    case "CardDrawn":
      if (d.source === "stock") return `${who(d.seat)} draws from the stock${d.card ? ` (${label(d.card)})` : ""}`;
      return `${who(d.seat)} takes ${d.cards && d.cards.length > 1 ? list(d.cards) : d.card ? label(d.card) : "the discard"} from the discard pile`;
    case "CardDiscarded": return `${who(d.seat)} discards ${label(d.card)}`;
    case "HandKnocked": {
      const how = {gin: "goes gin", big_gin: "goes big gin"}[d.kind] || `knocks with ${d.deadwood} deadwood`;
      return `${who(d.seat)} ${how}${d.discard ? `, discarding ${label(d.discard)}` : ""}`;
    }
    case "MeldsLaidDown": return `${who(d.seat)} lays down ${melds(d.melds)}${d.opening ? ` (opening, ${d.value} points)` : ""}`;
    case "CardLaidOff": return `${who(d.seat)} lays ${label(d.card)} off on meld #${d.meld}`;
    case "JokerExchanged": return `${who(d.seat)} exchanges ${label(d.card)} for the joker of meld #${d.meld}`;
    case "StockRebuilt": return "The stock is rebuilt from the discard pile";
    case "HandEnded": return `The hand ends: ${d.result}${d.reason ? ` (${d.reason.replace(/_/g, " ")})` : ""}`;
    case "HandScored": return `Hand ${d.hand_number} is scored: ${d.winner !== null && d.winner !== undefined
      ? `${who(d.winner)} wins it` : "nobody wins it"}${d.points ? ` (${d.points.join(" / ")})` : ""}`;
    case "SeedRevealed": return `Hand ${d.hand_number}'s seed is revealed: its deal can be checked`;
    case "MatchSeedRevealed": return "The match seed is revealed";
    case "MatchCompleted": return `The match is over: ${(d.winners || [d.winner]).filter((s) => s !== null && s !== undefined)
      .map(who).join(" and ") || "nobody"} wins`;
    case "SeatForfeited": return `${who(d.seat)} ${d.by === "seat" ? "resigns" : d.by === "clock" ? "runs out of time" : "is forfeited"}` +
      `${d.reason ? ` (${d.reason})` : ""}`;
    case "MatchAborted": return `The match is aborted${d.reason ? ` (${d.reason})` : ""}`;
    default: return event.type;
  }
}
