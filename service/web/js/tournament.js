// A tournament's page, open to anybody (docs/tournaments.md, "Reading one"): its standings
// and every round's tables, each with links to watch it and to replay it; before the start
// of one open for entry, its entrants so far and when it starts. With an entrant's player
// token (kept in this tab by app.js, or by the lobby's Join) it shows that entrant's own
// status above: their next table during a round break, then their table this round, whose
// seat the same token plays; before the start, a Leave button. The page reads the
// tournament again every POLL_MS while it is open for entry or runs (GET
// /v1/tournaments/{id}, the rounds not yet complete, and /me), redraws only what changed
// (what counts down, each second), and stops once the tournament is over.
import {api} from "./api.js";
import {h, notice, replace} from "./dom.js";
import {FORMATS, clockTime, entered, leftWords, untilWords} from "./entry.js";
import {optionSummary} from "./lobby.js";
import {forgetPlayer, keepSeat, keepTournamentOf, playerOf} from "./store.js";
import {VARIANT_NAMES, seatName} from "./table.js";
import {inWords} from "./words.js";

const POLL_MS = 2000;
const TITLE = "Rummy reference client";

const TIE_BREAKS = {buchholz: "Buchholz", sonneborn_berger: "Sonneborn-Berger", head_to_head: "Head-to-head",
  game_points: "Game points", wins: "Wins"};
const IN_WORDS = {buchholz: "Buchholz", sonneborn_berger: "Sonneborn-Berger", head_to_head: "head-to-head",
  game_points: "game points", wins: "wins"};

// Refusals in words, by the API's stable codes; anything else in the server's own words.
const REFUSALS = {
  tournament_not_found: "This tournament does not exist on this server: check the link you were given.",
  invalid_token: "This player link is not valid (mistyped, or replaced by the organiser): "
    + "the public page of the tournament is below.",
  not_an_entrant: "This player link belongs to no entrant of this tournament: the public page is below.",
  rate_limited: "Too many requests from here: the page tries again in a moment.",
  already_withdrawn: "You have left this tournament already.",
  tournament_over: "The tournament is over: there is nothing to leave.",
};

function refusalText(error) {
  if (!error.status) return "The server did not answer: the page tries again in a moment.";
  return inWords(error, REFUSALS);
}

// A failure that passes by itself (the network, a 5xx, a 429): the next poll tries again.
const passing = (error) => !error.status || error.status >= 500 || error.status === 429;

const number = (value) => (value === null || value === undefined ? "" : String(Math.round(value * 100) / 100));
const points = (value) => `${number(value)} point${value === 1 ? "" : "s"}`;

// "1st", "2nd", "3rd", "11th", "22nd"
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({1: "st", 2: "nd", 3: "rd"}[n % 10] || "th");
  return `${n}${suffix}`;
}

// "Ann", "Ann and Bob", "Ann, Bob and Cy"
function together(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0] || "";
}

export function openTournament(root, id) {
  let token = playerOf(id);
  let stopped = false;
  let timer = null;
  let drawn = null;  // what the page shows now, to redraw only what changed
  let playerNote = null;  // why a player link was dropped
  let confirming = false;  // the entrant asked to leave: the page asks them to confirm
  let timed = () => {};  // redraws what counts down (a start, a table opening)
  const ticker = setInterval(() => timed(), 1000);
  const rounds = new Map();  // round number -> its last reading (a complete round is not read again)
  const toggled = new Map();  // round number -> open or closed by the reader
  const heading = h("h1", {}, "Tournament");
  const facts = h("p", {class: "muted facts"});
  const status = h("p", {class: "status", role: "status"}, "Loading the tournament…");
  const message = h("div", {class: "messages"});
  const mineHeading = h("h2", {id: "me-heading"}, "Your games");
  const mineStatus = h("p", {class: "me-status", role: "status"});
  const mineLink = h("p", {class: "me-link"});
  const mineActions = h("div", {class: "me-actions"});
  const mineNote = h("div", {});
  const mineBody = h("div", {hidden: true}, mineHeading, mineStatus, mineLink, mineActions,
    h("p", {class: "small muted"}, "This tab keeps your player link: it opens each of your tables as your seat."));
  const mine = h("section", {class: "me-panel", "aria-labelledby": "me-heading", hidden: true}, mineNote, mineBody);
  const standings = h("section", {class: "standings", "aria-labelledby": "standings-heading"});
  const played = h("section", {class: "rounds", "aria-labelledby": "rounds-heading"});
  const page = h("div", {class: "tournament-page", "data-tournament": id},
    h("header", {class: "tournament-head"}, heading, facts, status), message, mine, standings, played);
  replace(root, page);

  async function readRounds(tournament) {
    const wanted = [];
    for (let n = 1; n <= tournament.round; n += 1) {
      if (!(rounds.get(n) || {}).completed) wanted.push(n);
    }
    const read = await Promise.all(wanted.map((n) => api.round(id, n)));
    read.forEach((round) => rounds.set(round.round, round));
  }

  async function readMe() {
    if (!token) return null;
    try {
      return await api.me(id, token);
    } catch (error) {
      if (passing(error)) throw error;
      // A token that names nobody here is dropped (a stale token sent again and again
      // would count against this address's failed authentications).
      forgetPlayer(id);
      token = null;
      playerNote = refusalText(error);
      return null;
    }
  }

  async function refresh() {
    let tournament;
    let me;
    try {
      tournament = await api.tournament(id);
      await readRounds(tournament);
      me = await readMe();
    } catch (error) {
      if (stopped) return;
      if (error.code === "tournament_not_found") { notFound(); return; }
      notice(message, refusalText(error), "error");
      if (!passing(error) && !drawn) return;
      schedule();
      return;
    }
    if (stopped) return;
    notice(message, "");
    const now = JSON.stringify([tournament.version, me, playerNote]);
    if (now !== drawn) {
      draw(tournament, me);
      drawn = now;
    }
    if (tournament.status === "running" || tournament.status === "registering") schedule();
  }

  function schedule() {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(refresh, POLL_MS);
  }

  // Leaving before the start, once confirmed: the page reads the tournament again at once.
  async function leave() {
    try {
      await api.leaveTournament(id, token);
      confirming = false;
    } catch (error) {
      notice(mineNote, refusalText(error), "error");
      return;
    }
    notice(mineNote, "");
    clearTimeout(timer);
    refresh();
  }

  function notFound() {
    page.dataset.status = "not_found";
    heading.textContent = "No such tournament";
    status.textContent = "";
    notice(message, `${REFUSALS.tournament_not_found} (“${id}”)`, "error");
    message.append(h("p", {}, h("a", {href: "#/"}, "Back to the lobby")));
  }

  function draw(tournament, me) {
    const current = rounds.get(tournament.round) || null;
    const bots = new Map(tournament.entrants.map((e) => [e.entrant, e.bot]));
    const who = (entrant, name) => seatName({name, bot: bots.get(entrant) ? {level: bots.get(entrant)} : null});
    const context = {tournament, me, who, mineAt: me ? me.entrant : null, toggled};
    page.dataset.status = tournament.status;
    page.dataset.version = String(tournament.version);
    page.dataset.round = String(tournament.round);
    document.title = `${tournament.name} · ${TITLE}`;
    heading.textContent = tournament.name;
    replace(facts, describe(tournament));
    status.dataset.status = tournament.status;
    const drawStatus = () => {
      const text = statusText(tournament, current);
      if (status.textContent !== text) status.textContent = text;
    };
    const drawMineStatus = drawMine(context, current);
    timed = () => { drawStatus(); drawMineStatus(); };
    timed();
    if (tournament.status === "registering") {
      replace(standings, h("h2", {id: "standings-heading"}, "Entrants"), entrantsList(context));
    } else replace(standings, h("h2", {id: "standings-heading"}, "Standings"), standingsTable(context));
    replace(played, h("h2", {id: "rounds-heading"}, "Rounds"),
      tournament.round ? null : h("p", {class: "muted"}, tournament.status === "registering"
        ? "The first round is paired when the tournament starts." : "No round has been paired yet."),
      Array.from({length: tournament.round}, (_, i) => tournament.round - i)
        .map((n) => roundDetails(context, rounds.get(n), n === tournament.round)));
  }

  // The entrant's own status: entered (with Leave) before the start, their next table
  // during a round break, their table this round (a link that opens their seat, the player
  // token handed to the table page as its seat token), a bye, withdrawn, or waiting. The
  // answer redraws the status line (it may count down).
  function drawMine(context, current) {
    const {tournament, me} = context;
    mine.hidden = !me && !playerNote;
    replace(mineNote, playerNote ? h("p", {class: "notice error"}, playerNote) : null);
    mineBody.hidden = !me;
    if (!me) return () => {};
    const table = me.table;
    const tableData = table && current ? current.tables.find((t) => t.match_id === table.match_id) : null;
    if (table) {
      keepSeat(table.match_id, table.seat, token, me.name);
      keepTournamentOf(table.match_id, {id, name: tournament.name});
    }
    mineHeading.textContent = `Your games: ${me.name}`;
    mineStatus.dataset.me = meState(tournament, me, current);
    drawActions(mineStatus.dataset.me);
    replace(mineLink, table && tournament.status === "running"
      ? h("a", {class: "button primary play-link", href: `#/table/${table.match_id}`, "data-match": table.match_id,
        "data-seat": table.seat}, table.result_recorded ? `Open your table of round ${me.round}`
        : `Play at your table (table ${table.table + 1})`) : null);
    return () => {
      const text = meText(context, current, tableData);
      const now = typeof text === "string" ? text : text.textContent;
      if (now !== mineStatus.textContent) replace(mineStatus, text);
    };
  }

  // Before the start an entrant may leave, after a second click that confirms it.
  function drawActions(state) {
    if (state !== "entered") { confirming = false; replace(mineActions); return; }
    const ask = () => { confirming = true; drawActions(state); mineActions.querySelector(".leave-confirm").focus(); };
    const cancel = () => { confirming = false; drawActions(state); mineActions.querySelector(".leave").focus(); };
    replace(mineActions, confirming
      ? h("div", {class: "leave-confirmation", role: "group", "aria-label": "Leave the tournament?"},
        h("p", {}, "Leave this tournament? No round will pair you, and you cannot enter it again under this name."),
        h("button", {type: "button", class: "leave-confirm danger", onclick: leave}, "Yes, leave"), " ",
        h("button", {type: "button", class: "leave-cancel", onclick: cancel}, "Stay in"))
      : h("button", {type: "button", class: "leave", onclick: ask}, "Leave the tournament"));
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
    clearInterval(ticker);
    document.title = TITLE;
  }

  refresh();
  return {stop};
}

// "Gin Rummy · round robin · 4 entrants · tables of 2 · Target 100"
function describe(tournament) {
  const options = optionSummary(tournament.options);
  return [VARIANT_NAMES[tournament.variant] || tournament.variant, FORMATS[tournament.format] || tournament.format,
    tournament.status === "registering" ? null : `${tournament.entrants.length} entrants`,
    `tables of ${tournament.table_size}`, options || null]
    .filter(Boolean).join(" · ");
}

// When a tournament open for entry starts: "starts in 4 min (14:05)", or at the organiser's word.
function startsText(registration) {
  if (!registration || !registration.starts_at) return "starts when the organiser starts it";
  const until = untilWords(registration.starts_at);
  return until ? `starts ${until}${until.startsWith("on ") ? "" : ` (${clockTime(registration.starts_at)})`}`
    : "starts any moment now";
}

function statusText(tournament, current) {
  if (tournament.status === "registering") {
    const count = entered(tournament);
    return `Open for entry: ${count} entrant${count === 1 ? "" : "s"} so far${leftWords(tournament)}, up to `
      + `${tournament.registration.max_players}. It ${startsText(tournament.registration)}.`;
  }
  if (tournament.status === "complete") {
    const first = tournament.standings.filter((row) => row.rank === 1).map((row) => row.name);
    return `Complete: ${together(first)} ${first.length > 1 ? "share first place" : "won"}.`;
  }
  if (tournament.status === "aborted") {
    return "Called off by the organiser: no more rounds are played, and tables still running no longer count.";
  }
  if (!tournament.round) return "Running: the first round is being paired.";
  const of = tournament.rounds ? ` of ${tournament.rounds}` : "";
  let text = `Running: round ${tournament.round}${of}`;
  const opensIn = current && !current.opened && current.opens_at ? untilWords(current.opens_at) : null;
  if (opensIn) text += ` is paired; its tables open ${opensIn}.`;
  else if (current && !current.opened) text += " is paired; its tables are being set up.";
  else if (current) {
    const finished = current.tables.filter((t) => t.finished).length;
    text += ` is being played (${finished} of ${current.tables.length} table${current.tables.length === 1 ? "" : "s"} finished).`;
  } else text += " is being played.";
  if (tournament.ends_at) {
    text += tournament.ends_at * 1000 > Date.now()
      ? ` New tables are paired until ${new Date(tournament.ends_at * 1000).toLocaleTimeString()}.`
      : " Time is up: the last tables are finishing.";
  }
  return text;
}

// A short name of the entrant's state, for the page's own tests and styles.
function meState(tournament, me, current) {
  if (tournament.status === "registering") return me.withdrawn ? "left" : "entered";
  if (tournament.status !== "running") return tournament.status;
  if (me.withdrawn) return "withdrawn";
  if (me.table) return me.table.result_recorded ? "finished" : "playing";
  if (me.bye) return "bye";
  if (me.upcoming) return "upcoming";
  return current && !current.opened ? "setting-up" : "waiting";
}

function meText({tournament, me, who}, current, tableData) {
  const row = tournament.standings.find((r) => r.entrant === me.entrant);
  const state = meState(tournament, me, current);
  const next = "Your next table appears here as soon as it is paired.";
  if (state === "complete") {
    const shared = tournament.standings.filter((r) => r.rank === row.rank).length > 1;
    return `The tournament is over: you finished ${shared ? "joint " : ""}${ordinal(row.rank)} of `
      + `${tournament.standings.length} with ${points(row.points)}.`;
  }
  if (state === "aborted") return "The tournament was called off by the organiser: no more rounds are played.";
  if (state === "entered") {
    return `You are entered. The tournament ${startsText(tournament.registration)}; `
      + "your first table appears here then.";
  }
  if (state === "left") return "You have left this tournament: no round will pair you.";
  if (state === "upcoming") {
    const {upcoming} = me;
    const opensIn = upcoming.opens_at ? untilWords(upcoming.opens_at) : null;
    return h("span", {}, `Round ${me.round}: your next table ${opensIn ? `opens ${opensIn}` : "is opening"}: vs `,
      upcoming.opponents.map((o, i) => [i ? (i === upcoming.opponents.length - 1 ? " and " : ", ") : "",
        who(o.entrant, o.name)]),
      ` (table ${upcoming.table + 1}, seat ${upcoming.seat}).`);
  }
  if (state === "withdrawn") return "You are withdrawn from this tournament: no later round pairs you.";
  if (state === "bye") return `Round ${me.round}: you have a bye (a full point without playing). ${next}`;
  if (state === "setting-up") return `Round ${me.round} is paired: your table is being set up.`;
  if (state === "waiting") return `Waiting for the next round. ${next}`;
  const table = me.table;
  const others = tableData ? tableData.seats.filter((s) => s.entrant !== me.entrant) : [];
  const against = others.length ? h("span", {}, ", against ",
    others.map((s, i) => [i ? (i === others.length - 1 ? " and " : ", ") : "", who(s.entrant, s.name)])) : "";
  if (state === "playing") {
    return h("span", {}, `Round ${me.round}: your table is ready. Table ${table.table + 1}, seat ${table.seat}`, against, ".");
  }
  const mineSeat = tableData && tableData.seats.find((s) => s.entrant === me.entrant);
  const scored = mineSeat && mineSeat.points !== null ? ` (${points(mineSeat.points)})` : "";
  return h("span", {}, `Round ${me.round}: your table is finished${scored}. ${next}`);
}

// Before the start: who has entered so far, in seeding order (a player who left marked).
function entrantsList({tournament, who, mineAt}) {
  return h("ol", {class: "entrants-list"}, tournament.entrants.map((entrant) => h("li", {
    class: [entrant.withdrawn ? "withdrawn" : "", entrant.entrant === mineAt ? "you" : ""].join(" ").trim() || null,
    "data-entrant": entrant.entrant},
  who(entrant.entrant, entrant.name),
  entrant.entrant === mineAt ? h("span", {class: "chip"}, "you") : null,
  entrant.withdrawn ? h("span", {class: "chip withdrawn-mark"}, "left") : null)));
}

// Rank, name, points, tables played, wins, byes, each tie-break in the tournament's order.
function standingsTable({tournament, who, mineAt}) {
  const breaks = tournament.tie_breaks.filter((name) => name !== "wins");
  const head = ["Rank", "Player", "Points", "Played", "Wins", "Byes", ...breaks.map((name) => TIE_BREAKS[name] || name)];
  const table = h("table", {class: "standings-table"},
    h("thead", {}, h("tr", {}, head.map((text) => h("th", {scope: "col"}, text)))),
    h("tbody", {}, tournament.standings.map((row) => h("tr", {
      class: [row.withdrawn ? "withdrawn" : "", row.entrant === mineAt ? "you" : ""].join(" ").trim() || null,
      "data-entrant": row.entrant},
    h("td", {}, String(row.rank)),
    h("th", {scope: "row"}, who(row.entrant, row.name),
      row.entrant === mineAt ? h("span", {class: "chip"}, "you") : null,
      row.withdrawn ? h("span", {class: "chip withdrawn-mark"}, "withdrawn") : null),
    h("td", {class: "points"}, number(row.points)),
    h("td", {}, String(row.played)), h("td", {}, String(row.wins)), h("td", {}, String(row.byes)),
    breaks.map((name) => h("td", {}, number(row.tie_breaks[name])))))));
  const order = tournament.tie_breaks.map((name) => IN_WORDS[name] || name);
  return [h("p", {class: "small muted scroll-hint"}, "The table scrolls sideways: every column is there."),
    h("div", {class: "scroll-box", role: "region", "aria-labelledby": "standings-heading", tabindex: 0}, table),
    h("p", {class: "small muted"}, `Ranked by points${order.length ? `, then ${together(order)}` : ""}. Points are match points: `
      + "1 for a win, 0.5 for a draw, a bye 1; a rank is shared by players level on everything.")];
}

// One round: its tables (seats, points once finished, links to watch and replay) and byes.
// The round being played is open; the reader may open or close any round, and it stays so.
function roundDetails(context, round, latest) {
  if (!round) return null;
  const n = round.round;
  const finished = round.tables.filter((t) => t.finished).length;
  const state = round.completed ? "complete" : !round.opened ? "tables being set up"
    : `${finished} of ${round.tables.length} table${round.tables.length === 1 ? "" : "s"} finished`;
  const open = context.toggled.has(n) ? context.toggled.get(n) : latest;
  const details = h("details", {class: "round", "data-round": n, "data-completed": round.completed ? "1" : "0",
    open}, h("summary", {}, h("h3", {}, `Round ${n}`), h("span", {class: "muted"}, ` · ${state}`)),
  h("ol", {class: "round-tables"}, round.tables.map((table) => tableCard(context, round, table))),
  round.byes.length ? h("p", {class: "byes"}, `Bye${round.byes.length > 1 ? "s" : ""}: `,
    round.byes.map((bye, i) => [i ? ", " : "", context.who(bye.entrant, bye.name)])) : null);
  // What the reader opened or closed stays so across redraws; the newest round opens itself.
  details.addEventListener("toggle", () => {
    if (details.open === latest) context.toggled.delete(n);
    else context.toggled.set(n, details.open);
  });
  return details;
}

function tableCard({tournament, who, mineAt}, round, table) {
  const best = table.finished ? Math.max(...table.seats.map((s) => s.points ?? 0)) : null;
  const label = `table ${table.table + 1} of round ${round.round}`;
  const remember = () => keepTournamentOf(table.match_id, {id: tournament.id, name: tournament.name});
  const state = table.forfeit ? "ended by forfeit" : table.finished ? "finished" : round.opened ? "playing" : "being set up";
  return h("li", {class: `table-card${table.seats.some((s) => s.entrant === mineAt) ? " yours" : ""}`,
    "data-match": table.match_id, "data-finished": table.finished ? "1" : "0", "data-forfeit": table.forfeit ? "1" : "0"},
  h("div", {class: "table-card-head"}, h("strong", {}, `Table ${table.table + 1}`),
    h("span", {class: `chip state-${table.forfeit ? "forfeit" : table.finished ? "finished" : "playing"}`}, state)),
  h("ol", {class: "table-seats"}, table.seats.map((seat) => h("li", {
    class: table.finished && seat.points === best ? "won" : null, "data-entrant": seat.entrant},
  h("span", {class: "who"}, who(seat.entrant, seat.name), seat.entrant === mineAt ? h("span", {class: "chip"}, "you") : null),
  seat.points !== null ? h("span", {class: "seat-points"}, points(seat.points),
    seat.game_points !== null ? h("span", {class: "muted small"}, ` · ${number(seat.game_points)} game points`) : null)
    : null))),
  round.opened ? h("p", {class: "table-links"},
    h("a", {href: `#/watch/${table.match_id}`, class: "watch-link", "aria-label": `Watch ${label}`, onclick: remember}, "Watch"),
    " · ",
    h("a", {href: `#/replay/${table.match_id}`, class: "replay-link", "aria-label": `Replay ${label}`, onclick: remember},
      "Replay")) : null);
}
