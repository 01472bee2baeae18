// Tournaments open for entry (docs/tournaments.md, "Open for entry"): the lobby's listing
// of them (GET /v1/lobby/tournaments), entering one by name (POST .../join, whose player
// token is kept in this tab as the ?token= route keeps it, then the tournament's page
// opens), and the words both pages use for a start time.
import {api} from "./api.js";
import {h, notice, replace} from "./dom.js";
import {keepPlayer, playerOf} from "./store.js";
import {VARIANT_NAMES} from "./table.js";
import {inWords} from "./words.js";

export const FORMATS = {round_robin: "round robin", double_round_robin: "double round robin", swiss: "Swiss",
  single_elimination: "single elimination", double_elimination: "double elimination", arena: "arena"};

// How many the lobby lists (the newest first); more are rare on one server.
const LISTED = 50;

// Refusals of POST .../join in words, by the API's stable codes.
const JOIN_REFUSALS = {
  name_taken: "Somebody in this tournament already plays under that name: choose another.",
  invalid_name: "That name cannot be used: a name needs a visible letter or digit.",
  entry_closed: "Entry has closed: this tournament has started (or was called off). Its page shows how it goes.",
  tournament_full: "This tournament is full: every place is taken.",
  tournament_not_found: "This tournament is no longer on this server.",
  rate_limited: "Too many requests from here: try again in a moment.",
};

export function joinRefusal(error) {
  return inWords(error, JOIN_REFUSALS);
}

// "14:05" today, "Sat 12 Dec, 14:05" another day.
export function clockTime(epoch) {
  const at = new Date(epoch * 1000);
  const time = {hour: "2-digit", minute: "2-digit"};
  return at.toDateString() === new Date().toDateString() ? at.toLocaleTimeString([], time)
    : at.toLocaleString([], {weekday: "short", day: "numeric", month: "short", ...time});
}

// "in 12 s", "in 4 min", "in 2 h 5 min", "on Sat 12 Dec, 14:05"; null once it is due.
export function untilWords(epoch, now = Date.now() / 1000) {
  const left = Math.ceil(epoch - now);
  if (left <= 0) return null;
  if (left < 60) return `in ${left} s`;
  if (left < 3600) return `in ${Math.ceil(left / 60)} min`;
  if (left < 86400) {
    const minutes = Math.ceil(left / 60);
    return `in ${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  }
  return `on ${clockTime(epoch)}`;
}

// The lobby's "starts at 14:05" / "starts when the organiser starts it".
function startText(registration) {
  if (!registration || !registration.starts_at) return "starts when the organiser starts it";
  return registration.starts_at * 1000 > Date.now() ? `starts at ${clockTime(registration.starts_at)}`
    : "starts any moment now";
}

// Entrants still in (a player who left keeps their entry, marked withdrawn, but no place).
export const entered = (tournament) => tournament.entrants.filter((e) => !e.withdrawn).length;
// " (1 has left)", when somebody has.
export function leftWords(tournament) {
  const left = tournament.entrants.length - entered(tournament);
  return left ? ` (${left} ${left === 1 ? "has" : "have"} left)` : "";
}
// Places taken count the entrants still in (the server's `tournament_full`).
const isFull = (tournament) => tournament.registration
  && entered(tournament) >= tournament.registration.max_players;

// The lobby's section: the tournaments open for entry, each with a Join control (the
// player's name, taken from the lobby's "Playing as" field, then one click). `refresh`
// reads the listing again; a row is redrawn only when its tournament changed, so a name
// being typed survives the lobby's refreshes.
export function entrySection(you, message) {
  const listing = h("div", {class: "entry-listing"}, h("p", {class: "muted"}, "Looking for tournaments…"));
  const rows = new Map();  // tournament id -> {key, row, form}
  let shown = null;

  async function refresh() {
    let page;
    try {
      page = await api.openTournaments({limit: LISTED});
    } catch (error) {
      notice(message, joinRefusal(error), "error");
      return;
    }
    const tournaments = page.tournaments;
    const key = JSON.stringify(tournaments.map((t) => [t.id, t.version, Boolean(playerOf(t.id))]));
    if (key === shown) return;
    shown = key;
    if (!tournaments.length) {
      rows.clear();
      replace(listing, h("p", {class: "muted entries-none"}, "No tournament is open for entry right now."));
      return;
    }
    const focused = listing.contains(document.activeElement) ? document.activeElement : null;
    const kept = new Map();
    const list = h("ul", {class: "open-tournaments"}, tournaments.map((tournament) => {
      const rowKey = JSON.stringify([tournament.version, Boolean(playerOf(tournament.id))]);
      const before = rows.get(tournament.id);
      const form = before ? before.form : joinForm(tournament, you);
      const row = before && before.key === rowKey ? before.row : entryRow(tournament, form, you);
      kept.set(tournament.id, {key: rowKey, row, form});
      return row;
    }), page.next_cursor ? h("li", {class: "muted small"}, `The ${LISTED} newest are listed.`) : null);
    rows.clear();
    kept.forEach((value, id) => rows.set(id, value));
    replace(listing, list);
    if (focused && listing.contains(focused)) focused.focus();
  }

  const element = h("section", {class: "entries", "aria-labelledby": "entries-heading"},
    h("h2", {id: "entries-heading"}, "Tournaments open for entry"),
    h("p", {class: "small muted"}, "Enter by name; the tournament's page then shows your table each round."),
    listing);
  return {element, refresh};
}

// "Friday gin · Gin Rummy · round robin · tables of 2 · 2 / 4 entrants · starts at 14:05 [Join]"
function entryRow(tournament, form, you) {
  const registration = tournament.registration || {};
  const mine = Boolean(playerOf(tournament.id));
  const full = isFull(tournament);
  const join = h("button", {type: "button", class: "join", "aria-expanded": String(!form.hidden),
    onclick: () => {
      const opening = form.hidden;
      form.hidden = !opening;
      join.setAttribute("aria-expanded", String(opening));
      if (!opening) return;
      // The name the lobby knows, unless one was typed here already.
      const name = form.querySelector("input");
      if (!name.value) name.value = you.value || sessionStorage.getItem("rummy.name") || "";
      name.focus();
    }}, "Join");
  return h("li", {"data-tournament": tournament.id},
    h("a", {href: `#/tournament/${tournament.id}`, class: "entry-name"}, h("strong", {}, tournament.name)),
    ` · ${VARIANT_NAMES[tournament.variant] || tournament.variant} · ${FORMATS[tournament.format] || tournament.format}`
      + ` · tables of ${tournament.table_size} · `,
    h("span", {class: "entry-count"},
      `${entered(tournament)} / ${registration.max_players} entrants${leftWords(tournament)}`), " · ",
    h("span", {class: "entry-start"}, startText(registration)), " ",
    mine ? [h("span", {class: "chip"}, "entered from this tab"), " ", h("a", {href: `#/tournament/${tournament.id}`,
      class: "your-entry"}, "your page")]
      : full ? h("span", {class: "chip"}, "full") : join,
    mine || full ? null : form);
}

// The name to enter under (the lobby's own, or typed here), then POST .../join: the token
// is kept in this tab and the tournament's page opens as this player's.
function joinForm(tournament, you) {
  const name = h("input", {name: "join-name", placeholder: "your name", maxlength: 64, required: true,
    autocomplete: "nickname"});
  const said = h("div", {class: "join-said"});
  const submit = h("button", {type: "submit", class: "primary"}, "Enter the tournament");
  async function enter(event) {
    event.preventDefault();
    const chosen = name.value.trim();
    if (!chosen) { name.focus(); return; }
    submit.disabled = true;
    try {
      const joined = await api.join(tournament.id, chosen);
      keepPlayer(tournament.id, joined.token);
      sessionStorage.setItem("rummy.name", joined.name);
      you.value = joined.name;
      location.hash = `#/tournament/${tournament.id}`;
    } catch (error) {
      replace(said, h("p", {class: "notice error join-error", role: "status"}, joinRefusal(error)));
      name.focus();
    } finally {
      submit.disabled = false;
    }
  }
  return h("form", {class: "join-form", hidden: true, onsubmit: enter},
    h("label", {}, "Enter as ", name), " ", submit, said);
}
