// Seat tokens live in this tab's sessionStorage, never in a URL sent to the server. A token
// may arrive in the URL fragment (a link handed to another player or tab); it is moved into
// sessionStorage and the fragment is cleaned at once.
const KEY = (matchId) => `rummy.seat.${matchId}`;
const OTHERS = (matchId) => `rummy.seats.${matchId}`;

export function seatOf(matchId) {
  const stored = sessionStorage.getItem(KEY(matchId));
  return stored ? JSON.parse(stored) : null;
}

// `claimed`: the seat was taken from the lobby (it can be given back while the match waits).
export function keepSeat(matchId, seat, token, name, {claimed = false} = {}) {
  sessionStorage.setItem(KEY(matchId), JSON.stringify({seat, token, name, claimed}));
}

// The creator token of a match this tab created: it may call the match off while it waits.
const CREATOR = (matchId) => `rummy.creator.${matchId}`;

export function keepCreator(matchId, token) {
  if (token) sessionStorage.setItem(CREATOR(matchId), token);
}

export function creatorOf(matchId) {
  return sessionStorage.getItem(CREATOR(matchId));
}

// Tokens of the other named seats of a match this tab created, for hand-over links.
export function keepOtherSeats(matchId, seats) {
  sessionStorage.setItem(OTHERS(matchId), JSON.stringify(seats));
}

export function otherSeats(matchId) {
  return JSON.parse(sessionStorage.getItem(OTHERS(matchId)) || "[]");
}

export function handOverLink(matchId, seat) {
  const fragment = new URLSearchParams({seat: seat.seat, token: seat.token, name: seat.name || ""});
  return `${location.origin}/#/table/${matchId}?${fragment}`;
}

// A tournament entrant's player token (docs/tournaments.md): it finds their table each
// round, and is their seat token there. Handed over in the fragment like a seat's
// (#/tournament/<id>?token=...), kept here, never in the address bar.
const PLAYER = (tournamentId) => `rummy.player.${tournamentId}`;

export function keepPlayer(tournamentId, token) {
  sessionStorage.setItem(PLAYER(tournamentId), token);
}

export function playerOf(tournamentId) {
  return sessionStorage.getItem(PLAYER(tournamentId));
}

export function forgetPlayer(tournamentId) {
  sessionStorage.removeItem(PLAYER(tournamentId));
}

// The tournament a match was opened from (the public views of a tournament's table do not
// name it): the table page links back to it.
const TOURNAMENT_OF = (matchId) => `rummy.tournament-of.${matchId}`;

export function keepTournamentOf(matchId, tournament) {
  sessionStorage.setItem(TOURNAMENT_OF(matchId), JSON.stringify(tournament));
}

export function tournamentOf(matchId) {
  const stored = sessionStorage.getItem(TOURNAMENT_OF(matchId));
  return stored ? JSON.parse(stored) : null;
}
