// What a player reads when the server refuses or does not answer. The API's stable codes
// stay the API's: a player sees them in words, a page's own words first (a refusal that
// means something particular there), then these, then the server's own message without
// its code; never a bare code, a stack of API terms or "Failed to fetch".

const COMMON = {
  store_unavailable: "The server cannot reach its storage for a moment: try again shortly.",
  rate_limited: "Too many requests from here: wait a moment and try again.",
  version_conflict: "The table moved on; here it is now.",
  request_in_flight: "That move is still on its way: wait a moment.",
  match_over: "This match is over: nothing more can be played at it.",
  match_not_found: "The server no longer keeps this match: start a new one from the lobby.",
  match_aborted: "This match was called off.",
  missing_token: "This tab holds no token for the seat: open the seat's own link.",
  invalid_token: "This tab's token for the seat no longer works (it was replaced, or the seat given back).",
  forbidden: "This seat may not do that.",
  owner_only: "Only the seat's own player may do that.",
  seat_only: "Only the seat's own player may do that.",
  not_your_seat: "This tab's token holds another seat.",
  creator_only: "Only the match's creator may do that.",
  match_started: "The match has started: resign instead.",
  not_your_turn: "It is not your turn.",
  wrong_phase: "That move does not fit this moment of the turn.",
  card_not_in_hand: "That card is not in your hand any more.",
  seat_taken: "Somebody took that seat first: choose another table or seat.",
  seat_not_found: "This table has no such seat.",
  invalid_invite: "That invite code does not open this table.",
  name_taken: "Somebody at this table already plays under that name: choose another.",
  invalid_text: "That name or text holds a character the server does not accept.",
  body_timeout: "The request took too long to send: try again.",
};

const NO_ANSWER = "The server did not answer: try again.";

export function inWords(error, own = {}) {
  if (!error || !error.status) return NO_ANSWER;
  const code = error.code;
  if (code && own[code]) return own[code];
  if (code && COMMON[code]) return COMMON[code];
  if (error.status >= 500) return "The server is having trouble: try again in a moment.";
  return error.detail || `The server refused (HTTP ${error.status}).`;
}
