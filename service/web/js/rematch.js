// The end screen's rematch (docs/front-ends.md, "Rematch"): "Play again" offers it, or
// accepts the one on offer; the panel reads GET /rematch every POLL_MS while an answer may
// still come (the live stream ends with the match and does not carry the rematch), so an
// opponent's offer appears, and a rematch this page offered or accepted opens as soon as
// the last seat accepts. The new seat's token is kept where every seat token is (store.js).
import {api} from "./api.js";
import {h, replace} from "./dom.js";
import {keepOtherSeats, keepSeat, otherSeats} from "./store.js";
import {inWords} from "./words.js";

const POLL_MS = 1500;

// Refusals in words, by the API's stable codes; anything else in the server's own words.
const REFUSALS = {
  rematch_declined: "The rematch was declined: start a new match from the lobby instead.",
  rematch_started: "The rematch has already started.",
  no_rematch: "This match was called off without a result: it has no rematch.",
  match_not_finished: "The match is still being played: a rematch can wait for its end.",
  match_not_started: "The match never started: it has no rematch.",
  match_not_found: "The server no longer keeps this match: start a new one from the lobby.",
  rate_limited: "Too many requests from this seat: wait a moment and try again.",
  missing_token: "This tab holds no token for the seat: a rematch needs the seat's token.",
  invalid_token: "This tab's token for the seat no longer works (it was replaced).",
  forbidden: "This tab's token for the seat no longer works here.",
};

export function refusalText(error) {
  return inWords(error, REFUSALS);
}

// "Bob", "Bob and Cy", "Bob, Cy and Dee"
function together(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0] || "";
}

// The tab that created a match holds its other named seats' tokens, to hand them over
// (store.js): each one's token in the rematch is that seat's to read, with its old token.
async function handOverTheRematch(matchId, newMatchId) {
  const seats = [];
  for (const other of otherSeats(matchId)) {
    const answer = await api.rematchState(matchId, other.token).catch(() => null);
    if (answer && answer.token) seats.push({seat: answer.new_seat, token: answer.token, name: other.name});
  }
  if (seats.length) keepOtherSeats(newMatchId, seats);
}

// The rematch of `matchId` as seen by the seat `seat` holds (its token): `{element, stop}`.
export function rematchPanel(matchId, seat) {
  const element = h("div", {class: "rematch-panel", role: "status", "aria-live": "polite"});
  const said = h("p", {class: "notice error rematch-error"});
  let state = null;
  let timer = null;
  let stopped = false;
  let busy = false;
  let joined = false;  // this page offered or accepted: it follows the rematch when it starts
  let sent = 0;  // this page's own requests, sent and answered: a read that overlaps one is stale

  const nameOf = (number) => {
    if (number === state.seat) return "You";
    const found = state.seats.find((s) => s.seat === number);
    return found ? found.name : `seat ${number}`;
  };

  function say(text) {
    said.textContent = text;
    if (text) element.append(said); else said.remove();
  }

  // The rematch started and this page took part: the new seat's token, the hand-over
  // links of the other seats this tab holds, then the new table.
  async function follow(next) {
    if (!next.token || next.new_seat === null || stopped) return false;
    stop();
    const mine = next.seats.find((s) => s.seat === next.seat);
    keepSeat(next.new_match_id, next.new_seat, next.token, mine ? mine.name : seat.name);
    await handOverTheRematch(matchId, next.new_match_id);
    location.hash = `#/table/${next.new_match_id}`;
    return true;
  }

  function draw(next) {
    if (stopped) return;
    state = next;
    element.dataset.rematch = next.status;
    const mine = next.seat ?? seat.seat;
    if (next.status === "offered" && next.accepted.includes(mine)) joined = true;
    if (next.status === "started" && joined && next.token) { follow(next); return; }
    replace(element, ...body(next, mine), said.textContent ? said : null);
  }

  function body(next, mine) {
    const button = (name, text, onclick, kind = "") =>
      h("button", {type: "button", class: `${name} ${kind}`.trim(), disabled: busy, onclick}, text);
    if (next.status === "none") return [button("rematch", "Play again", () => send(api.rematch), "primary")];
    if (next.status === "offered" && next.awaited.includes(mine)) {
      return [h("p", {class: "rematch-offer"}, `${nameOf(next.offered_by)} offers a rematch`),
        button("accept", "Accept", () => send(api.rematch), "primary"),
        button("decline", "Decline", () => send(api.declineRematch))];
    }
    if (next.status === "offered") {
      return [h("p", {class: "rematch-waiting"}, `Waiting for ${together(next.awaited.map(nameOf))} to accept`)];
    }
    if (next.status === "declined") {
      const who = nameOf(next.declined_by);
      return [h("p", {class: "rematch-declined"}, `${who} declined the rematch.`),
        h("a", {href: "#/"}, "Find another match in the lobby")];
    }
    return [h("p", {class: "rematch-started"}, "The rematch has started."),
      next.token ? button("join", "Go to the rematch", () => follow(next), "primary")
        : h("a", {href: `#/watch/${next.new_match_id}`}, "Watch the rematch")];
  }

  // Play again, accept or decline: the answer is the rematch as it now stands.
  async function send(request) {
    if (busy) return;
    busy = true;
    sent += 1;
    say("");
    if (state) replace(element, ...body(state, state.seat ?? seat.seat));
    try {
      const answer = await request(matchId, seat.token);
      busy = false;
      sent += 1;
      if (request === api.rematch) joined = true;
      draw(answer);
    } catch (error) {
      busy = false;
      sent += 1;
      await read();
      say(refusalText(error));
    }
  }

  async function read() {
    const before = sent;
    try {
      const next = await api.rematchState(matchId, seat.token);
      if (before === sent && !busy) draw(next);
      return true;
    } catch (error) {
      if (error.status && error.status < 500 && error.status !== 429) {
        // no rematch for this match (called off), or this tab's token no longer works
        if (error.code === "no_rematch" || error.code === "match_not_started") replace(element);
        else replace(element, h("p", {class: "notice error rematch-error"}, refusalText(error)));
        element.dataset.rematch = "unavailable";
        return false;
      }
      return true;  // a passing failure: the next read may get through
    }
  }

  // Read until nothing more can happen here: declined, or started and followed.
  async function poll() {
    if (stopped) return;
    const goOn = await read();
    if (stopped || !goOn || (state && state.status === "declined")) return;
    if (state && state.status === "started" && !joined) return;
    timer = setTimeout(poll, POLL_MS);
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
  }

  poll();
  return {element, stop};
}
