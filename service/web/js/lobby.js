// The lobby: play the computer or watch it play (one click each), create a match (named
// players and open seats, options from GET /v1/variants, an optional invite code), list
// matches waiting for players, claim an open seat; list tournaments open for entry and
// join one (entry.js).
import {api} from "./api.js";
import {h, notice, replace} from "./dom.js";
import {entrySection} from "./entry.js";
import {keepCreator, keepOtherSeats, keepSeat} from "./store.js";
import {seatName} from "./table.js";
import {inWords} from "./words.js";

export async function openLobby(root) {
  const message = h("div", {class: "messages"});
  const listing = h("div", {class: "listing"});
  const you = h("input", {name: "you", placeholder: "your name", value: sessionStorage.getItem("rummy.name") || "",
    maxlength: 64, required: true});
  you.addEventListener("change", () => sessionStorage.setItem("rummy.name", you.value));
  const variants = await api.variants();
  const entries = entrySection(you, message);
  const refresh = () => Promise.all([list(listing, you, message), entries.refresh()]);
  replace(root, h("div", {class: "lobby"},
    h("h1", {class: "page-title"}, "Lobby"),
    h("label", {class: "you"}, "Playing as ", you),
    message,
    h("div", {class: "computers"}, computerForm(variants, message, {you}),
      computerForm(variants, message, {watch: true})),
    createForm(variants, you, message),
    h("section", {}, h("h2", {}, "Open seats"),
      h("button", {type: "button", class: "refresh", onclick: refresh}, "Refresh"),
      listing),
    entries.element,
    h("section", {}, h("h2", {}, "Watch or replay a match"), watchForm())));
  await refresh();
  const timer = setInterval(() => root.contains(listing) ? refresh() : clearInterval(timer), 5000);
}

// How long a bot waits before each move (think_ms): slow enough to follow by default.
const PACES = [[700, "steady: 0.7 s before each move, to follow them"], [300, "brisk: 0.3 s"],
  [100, "quick: 0.1 s"], [0, "instant: no wait"]];
const LEVELS = [["basic", "basic: a sound, simple player"], ["expert", "expert: searches ahead"],
  ["random", "random: any legal move"]];

// "Play the computer" (you in seat 0, bots in the others: the table opens at once as your
// seat) or, with `watch`, "Watch the computer play" (every seat a bot's: the spectator
// page opens). Variant, level, seat count within the variant's bounds, the bots' pace, and
// the variant's options as in a new match.
function computerForm(variants, message, {you = null, watch = false}) {
  const prefix = watch ? "watch" : "bot";
  const select = (name, entries) => h("select", {name: `${prefix}-${name}`},
    entries.map(([value, text], i) => h("option", {value, selected: i === 0}, text)));
  const variant = select("variant", variants.map((v) => [v.name, v.name]));
  const level = select("level", LEVELS);
  const pace = select("pace", PACES);
  const count = h("select", {name: `${prefix}-seats`});
  const options = h("div", {class: "options"});
  const described = () => variants.find((v) => v.name === variant.value);
  const redraw = () => {
    const {min_players: min, max_players: max} = described();
    replace(count, Array.from({length: max - min + 1}, (_, i) => h("option", {value: min + i}, String(min + i))));
    drawOptions(options, described(), `${prefix}-option`);
  };
  variant.addEventListener("change", redraw);
  redraw();

  async function submit(event) {
    event.preventDefault();
    const bot = {bot: level.value, think_ms: Number(pace.value)};
    const seats = Number(count.value);
    const players = Array.from({length: seats}, (_, seat) => (seat === 0 && !watch ? {name: you.value || "Player 1"} : bot));
    try {
      const created = await api.create({variant: variant.value, players,
        options: readOptions(options, described(), `${prefix}-option`)});
      if (watch) { location.hash = `#/watch/${created.id}`; return; }
      const mine = created.seats[0];
      keepSeat(created.id, mine.seat, mine.token, mine.name);
      location.hash = `#/table/${created.id}`;
    } catch (error) {
      notice(message, inWords(error), "error");
    }
  }

  return h("section", {class: `computer ${prefix}`},
    h("h2", {}, watch ? "Watch the computer play" : "Play the computer"),
    h("p", {class: "small muted"}, watch ? "Every seat a bot's: the match plays itself out on the spectator page."
      : "You take seat 0 (by the name above), bots every other seat; the table opens at once."),
    h("form", {class: `computer-form ${prefix}-form`, onsubmit: submit},
      h("label", {}, "Variant ", variant), h("label", {}, "Level ", level),
      h("label", {}, "Seats ", count), h("label", {}, "Bot pace ", pace),
      h("details", {}, h("summary", {}, "Options"), options),
      h("button", {type: "submit", class: "primary"}, watch ? "Watch the computer play" : "Play the computer")));
}

function createForm(variants, you, message) {
  const variant = h("select", {name: "variant"}, variants.map((v) => h("option", {value: v.name}, v.name)));
  const players = h("div", {class: "players"});
  const options = h("div", {class: "options"});
  const invite = h("input", {name: "invite_code", placeholder: "invite code (optional, 4+ characters)", minlength: 4, maxlength: 64, size: 36});
  const clock = clockFields();
  const described = () => variants.find((v) => v.name === variant.value);
  const redraw = () => { drawPlayers(players, described()); drawOptions(options, described()); };
  variant.addEventListener("change", redraw);
  redraw();

  async function submit(event) {
    event.preventDefault();
    const body = {variant: variant.value, players: readPlayers(players, you.value), options: readOptions(options, described())};
    if (invite.value) body.invite_code = invite.value;
    const timed = readClock(clock);
    if (timed) body.clock = timed;
    try {
      const created = await api.create(body);
      keepCreator(created.id, created.creator_token);
      const named = created.seats.filter((seat) => seat.token);
      if (named.length) {
        keepSeat(created.id, named[0].seat, named[0].token, named[0].name);
        keepOtherSeats(created.id, named.slice(1));
      }
      location.hash = named.length ? `#/table/${created.id}` : `#/watch/${created.id}`;
    } catch (error) {
      notice(message, inWords(error), "error");
    }
  }

  return h("section", {}, h("h2", {}, "New match"),
    h("form", {class: "create", onsubmit: submit},
      h("label", {}, "Variant ", variant), players,
      h("details", {}, h("summary", {}, "Options"), options),
      h("details", {}, h("summary", {}, "Clock"), clock),
      h("label", {}, "Invite code ", invite),
      h("button", {type: "submit", class: "primary"}, "Create match")));
}

// Seat 0 is you; the others open seats (anyone may claim them) unless given a name.
function drawPlayers(container, variant) {
  replace(container, h("p", {class: "small"}, "Seats: seat 0 is you. Name another seat to hold it yourself "
    + "(you get its token to hand over); leave it empty to open it to the lobby."),
    Array.from({length: variant.max_players}, (_, seat) => seat === 0 ? null
      : h("label", {class: "player"}, `seat ${seat} `,
        h("select", {name: `use-${seat}`}, h("option", {value: "open"}, "open seat"),
          h("option", {value: "named"}, "named"), h("option", {value: "none", selected: seat >= variant.min_players}, "no seat")),
        h("input", {name: `name-${seat}`, placeholder: "name", maxlength: 64}))));
}

function readPlayers(container, you) {
  const players = [{name: you || "Player 1"}];
  for (const select of container.querySelectorAll("select")) {
    const seat = select.name.split("-")[1];
    const name = container.querySelector(`input[name="name-${seat}"]`).value;
    if (select.value === "open") players.push({open: true});
    if (select.value === "named") players.push({name: name || `Player ${Number(seat) + 1}`});
  }
  return players;
}

// Option names in words ("big_gin" -> "Big gin"), each with its description beneath.
export const optionLabel = (name) => name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, " ");

// `prefix` names the inputs apart from another form's on the same page.
function drawOptions(container, variant, prefix = "option") {
  replace(container, variant.options.map((spec) => h("label", {class: "option", "data-option": spec.name},
    h("span", {class: "option-name"}, optionLabel(spec.name)), " ", optionInput(spec, prefix),
    h("small", {class: "muted option-help"}, helpText(spec.description)))));
}

// An option's description as the API gives it, with the API's "null" said as a player
// sets it: by leaving the field empty.
const helpText = (description) => (description || "").replace(/\bnull\b/g, "left empty");

// The match clock (optional): a per-turn limit and/or a time bank per seat, and what
// happens at zero in plain words (domain/clocks.py): a forfeit loses the whole match.
function clockFields() {
  return h("div", {class: "clock-fields"},
    h("label", {}, "Seconds per turn ", h("input", {type: "number", name: "clock-turn", min: 1, placeholder: "no limit"})),
    h("label", {}, "Time bank per player (seconds) ", h("input", {type: "number", name: "clock-bank", min: 1, placeholder: "none"})),
    h("label", {}, "When time runs out ", h("select", {name: "clock-timeout"},
      h("option", {value: "forfeit"}, "the player forfeits: the match ends, and they lose it"),
      h("option", {value: "auto_play"}, "a safe move is played for them (a forfeit if there is none)"))),
    h("small", {class: "muted option-help clock-help"}, "A turn may take its seconds plus what is left of the "
      + "player's bank. The table shows the running clock, amber when it runs low and red with a warning "
      + "(and a tone) in its last 10 seconds."));
}

function readClock(container) {
  const number = (name) => {
    const value = container.querySelector(`[name="${name}"]`).value;
    return value === "" ? null : Number(value);
  };
  const turn = number("clock-turn");
  const bank = number("clock-bank");
  if (turn === null && bank === null) return null;
  return {turn_seconds: turn, bank_seconds: bank,
    on_timeout: container.querySelector("[name=clock-timeout]").value};
}

function optionInput(spec, prefix) {
  const name = `${prefix}-${spec.name}`;
  if (spec.choices) {
    return h("select", {name}, spec.choices.map((choice) =>
      h("option", {value: JSON.stringify(choice), selected: choice === spec.default}, String(choice))));
  }
  if (spec.type === "boolean") return h("input", {type: "checkbox", name, checked: spec.default === true});
  return h("input", {type: "number", name, value: spec.default ?? "", min: spec.minimum, max: spec.maximum,
    placeholder: spec.nullable ? "none" : ""});
}

// Only options changed from their defaults are sent.
function readOptions(container, variant, prefix = "option") {
  const options = {};
  for (const spec of variant.options) {
    const input = container.querySelector(`[name="${prefix}-${spec.name}"]`);
    let value;
    if (spec.choices) value = JSON.parse(input.value);
    else if (spec.type === "boolean") value = input.checked;
    else value = input.value === "" ? null : Number(input.value);
    if (value !== spec.default) options[spec.name] = value;
  }
  return options;
}

async function list(container, you, message) {
  let page;
  try { page = await api.lobby(); } catch (error) { notice(message, inWords(error), "error"); return; }
  if (!page.matches.length) { replace(container, h("p", {class: "muted"}, "No match is waiting for players.")); return; }
  replace(container, h("ul", {class: "waiting"}, page.matches.map((match) => {
    const code = match.invite_only ? h("input", {name: "invite", class: "invite", placeholder: "invite code",
      maxlength: 64, size: 12}) : null;
    return h("li", {"data-match": match.id},
      h("strong", {}, match.variant), ` · ${age(match.created_at)} · `, creatorHere(match),
      h("span", {class: "muted small"}, optionSummary(match.options)), " ",
      match.seats.map((seat) => seat.open
        ? claimButton(match, seat.seat, you, message, code)
        : h("span", {class: "chip"}, seatName(seat))),
      match.invite_only ? h("span", {class: "chip", title: "needs the invite code"}, "invite only") : null,
      code);
  })));
}

// "created 3 min ago"
function age(createdAt) {
  return `created ${since(createdAt, "just now", " ago")}`;
}

// "3 min" (with `suffix`), or `recent` under a minute.
function since(at, recent, suffix = "") {
  const seconds = Math.max(0, Math.round(Date.now() / 1000 - at));
  if (seconds < 60) return recent;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min${suffix}`;
  return `${Math.round(seconds / 3600)} h${suffix}`;
}

// "Ann here now", or "Ann away (here 2 min ago)": whether the table's creator is at it (the
// server calls a table off once its creator has been away a while). Nothing when the
// server cannot tell (an organiser's table, or no seat named for a person).
function creatorHere(match) {
  if (match.creator_present === null || match.creator_present === undefined) return null;
  const creator = match.seats.find((seat) => !seat.open && !seat.bot && seat.name);
  const seen = match.creator_seen_at ? ` (here ${since(match.creator_seen_at, "just now", " ago")})` : "";
  return [h("span", {class: "creator", "data-present": String(match.creator_present)},
    `${creator ? creator.name : "The creator"} ${match.creator_present ? "here now" : `away${seen}`}`), " · "];
}

// The options that shape a table, in words: "Target 100 · Knock limit 10".
export function optionSummary(options) {
  const shown = ["target", "knock_limit", "oklahoma", "rounds", "opening_minimum"];
  return Object.entries(options || {}).filter(([name, value]) => shown.includes(name) && value !== null)
    .map(([name, value]) => `${optionLabel(name)} ${value === true ? "on" : value === false ? "off" : value}`)
    .join(" · ");
}

function claimButton(match, seat, you, message, code) {
  async function claim() {
    const body = {name: you.value || `Player ${seat + 1}`};
    if (match.invite_only) {
      if (!code.value) { notice(message, "This table needs its invite code: type it beside the seat.", "error"); code.focus(); return; }
      body.invite_code = code.value;
    }
    try {
      const claimed = await api.claim(match.id, seat, body);
      keepSeat(match.id, claimed.seat, claimed.token, claimed.name, {claimed: true});
      location.hash = `#/table/${match.id}`;
    } catch (error) {
      notice(message, inWords(error), "error");
    }
  }
  return h("button", {type: "button", class: "claim", "data-claim": seat, onclick: claim}, `Take seat ${seat}`);
}

function watchForm() {
  const id = h("input", {name: "match", placeholder: "match id", required: true, pattern: "[A-Za-z0-9_-]+"});
  const go = (where) => (event) => { event.preventDefault(); if (id.value) location.hash = `#/${where}/${id.value.trim()}`; };
  return h("form", {class: "watch", onsubmit: go("watch")}, id,
    h("button", {type: "submit"}, "Watch"), h("button", {type: "button", onclick: go("replay")}, "Replay"));
}
