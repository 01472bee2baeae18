// A live table: a seat's (with its token from this tab's sessionStorage) or a spectator's.
// Every stream event re-reads the view; actions are only ever ones the view lists, and
// only while the view is current: a read that fails (a 5xx, a 429, the network) is tried
// again with backoff until it succeeds, and meanwhile the page says it is reconnecting
// and offers no move (the server would refuse a move made on a stale table).
import {api, follow} from "./api.js";
import {h, notice, replace} from "./dom.js";
import {gemDeckKnown, knowGemDeck} from "./cards.js";
import {composer, newComposer} from "./compose.js";
import {moveLog} from "./movelog.js";
import {rematchPanel} from "./rematch.js";
import {creatorOf, handOverLink, otherSeats, seatOf, tournamentOf} from "./store.js";
import {handHeadline, isOver, renderTable, showdown, tickClock} from "./table.js";
import {inWords} from "./words.js";

const SHOWDOWN_MS = 12000;
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 8000;
const CLOCK_TICK_MS = 250;
// The seconds left at which a seat's own running clock sounds again after its warning.
const LAST_CALL_SECONDS = 5;

const TITLE = "Rummy reference client";

// The card the last move put on the discard pile, marked until the next view.
function markLastMove(board, previous, next) {
  const top = (view) => (view && view.discard_pile && view.discard_pile.length
    ? `${view.discard_pile.length}:${view.discard_pile[view.discard_pile.length - 1]}` : null);
  if (!previous || top(previous) === top(next) || !top(next)) return;
  const cards = board.querySelectorAll(".pile.discards .card");
  if (cards.length) cards[cards.length - 1].classList.add("last-move");
}

// One short tone (Web Audio); silent where the browser allows no sound yet.
function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    volume.gain.value = 0.05;
    tone.frequency.value = 660;
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
    tone.onended = () => audio.close();
  } catch {
    // no audio: the title says it
  }
}

// A table opened without a seat's token is a spectator's: say so, and how to play (or,
// when the computer holds every seat, that the match plays itself out).
function spectatorHint(view) {
  if (view && view.seats.length && view.seats.every((seat) => seat.bot)) {
    return h("p", {class: "notice spectator-hint", "data-all-bots": "1"},
      "The computer plays every seat: watch it play this match out, move by move.");
  }
  return h("p", {class: "notice spectator-hint"}, "You are watching this table. To play, take an open seat ",
    h("a", {href: "#/"}, "in the lobby"), ", or open the link the match's creator handed you for your seat.");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A view as drawn, as text: its objects' keys in order, and without the time a seat last
// acted (a tooltip's detail that every move of the seat changes).
const drawing = (value) => JSON.stringify(value, (key, item) => {
  if (key === "last_action_at") return undefined;
  return item && typeof item === "object" && !Array.isArray(item)
    ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item;
});

// An action's answer is the table without the seats' presence (a read of the view has it):
// the presence shown is kept, so that the stream's echo of the move brings nothing new.
function withPresence(answer, shown) {
  if (!shown || !Array.isArray(answer.seats) || !Array.isArray(shown.seats)) return answer;
  return {...answer, seats: answer.seats.map((seat, n) => (seat.presence === undefined
    && shown.seats[n] && shown.seats[n].presence !== undefined ? {...seat, presence: shown.seats[n].presence} : seat))};
}

// A failure that passes by itself: the server busy or down (5xx, 429) or no answer at
// all (the network's TypeError, or api.js's NoAnswer when none came in time: neither has
// a status). A 4xx is an answer: the match or the token is gone, and asking again would
// not change it.
const passing = (error) => !error.status || error.status >= 500 || error.status === 429;

// A redraw replaces the elements that had focus: a keyboard player is put back on the
// hand, on its first move if it offers one, else on the table's first move, else on the
// hand itself, so the next Tab goes on from where they play.
function keepFocus(drawn) {
  const target = drawn.querySelector(".mine [data-action]:not([disabled])")
    || drawn.querySelector(".table [data-action]:not([disabled])")
    || drawn.querySelector(".mine") || drawn.querySelector(".table .status");
  if (target) target.focus({preventScroll: true});
}

// A gem table reads the gem deck once, so a finished hand shows each card's gems.
async function learnTheGemDeck() {
  try {
    const gem = (await api.variants()).find((variant) => variant.name === "gem");
    if (gem && gem.cards) knowGemDeck(gem.cards);
  } catch {
    // the showdown then shows its cards without their gems
  }
}

export function openTable(root, matchId, {spectate = false} = {}) {
  const seat = spectate ? null : seatOf(matchId);
  const token = seat && seat.token;
  const message = h("div", {class: "messages"});
  const connection = h("p", {class: "connection", role: "status", "data-connection": "connecting"});
  const announcer = h("p", {class: "visually-hidden announce", "aria-live": "polite"});
  const board = h("div", {class: "board"});
  const shown = h("div", {class: "showdown-box"});
  const log = moveLog();
  const hint = h("div", {class: "hint-box"}, token ? null : spectatorHint(null));
  let view = null;
  let handsSeen = null;
  let showdownTimer = null;
  let confirming = null;
  let composing = newComposer();
  let composedAt = null;
  let busy = false;
  let stale = false;
  let live = null;
  let gone = false;  // this tab gave its seat back: its token is revoked
  let rematch = null;
  let renders = 0;
  const mounted = () => root.contains(board);

  replace(root, h("div", {class: "table-page", "data-match": matchId, "data-mode": token ? "seat" : "spectator"},
    h("p", {class: "muted small"}, token ? `Match ${matchId} · seat ${seat.seat} (${seat.name || "you"})`
      : `Match ${matchId} · watching`, " · ", h("a", {href: `#/watch/${matchId}`}, "spectator view"),
      " · ", h("a", {href: `#/replay/${matchId}`}, "replay & verify"), tournamentLink(matchId)),
    hint,
    handOver(matchId, token), connection, announcer, message,
    h("div", {class: "table-and-log"}, h("div", {class: "table-column"}, shown, board), log.element)));

  // "live" (the view is current and the stream open), "reconnecting" (a read failed or
  // the stream dropped: retrying), "ended" (the stream ended for good).
  function setConnection(state) {
    connection.dataset.connection = state;
    connection.textContent = state === "reconnecting" ? "Connection lost: reconnecting…" : "";
  }

  function show(next) {
    // A stream re-read and an action's answer may cross: never go back to an older version.
    if (view && next.version < view.version) return;
    const hands = (next.hands || []).length;
    if (isOver(next)) closeShowdown();  // the end screen shows the last hand itself
    else if (handsSeen !== null && hands > handsSeen) openShowdown(next);
    handsSeen = hands;
    const previous = view;
    view = next;
    log.table(view);
    if (!token && !previous) replace(hint, spectatorHint(view));
    renders += 1;
    board.dataset.renders = String(renders);
    const focused = board.contains(document.activeElement);
    replace(board, renderTable(view, {live: true, onAction: token && !busy && !stale ? act : null,
      controls: {seat: seatControls(), rematch: token && view.phase === "complete" ? rematchControl() : null,
        compose: token && ["rummy", "rami"].includes(view.variant) ? composeFor : null}}));
    if (focused) keepFocus(board);
    announceTurn(board);
    markLastMove(board, previous, view);
    alertTurn(previous, view);
  }

  // A screen reader hears whose turn it is, and what to do, each time that changes (the
  // move log beside the table tells the moves themselves).
  function announceTurn(drawn) {
    const line = drawn.querySelector(".table .status");
    const said = line ? line.textContent : "";
    if (said !== announcer.textContent) announcer.textContent = said;
  }

  // Your turn, said where a player looks away to: the tab's title, and one short tone.
  function alertTurn(previous, next) {
    if (!token) return;
    const mine = next.turn === seat.seat && (next.legal_actions || []).length > 0 && !isOver(next);
    document.title = mine ? `● Your turn · ${TITLE}` : TITLE;
    board.dataset.yourTurn = mine ? "1" : "0";
    const wasMine = previous && previous.turn === seat.seat && (previous.legal_actions || []).length > 0;
    if (mine && previous && !wasMine) beep();
  }

  // Rummy/rami: the composer keeps its picks while the view stays at one version.
  function composeFor(shown) {
    if (composedAt !== shown.version) { composing = newComposer(); composedAt = shown.version; }
    return composer(shown, composing, {
      check: (action) => api.check(matchId, token, action),
      send: (action) => { composing = newComposer(); act(action); },
      redraw: () => show({...view}),
    });
  }

  // The hand that just ended, laid open above the new deal until the player continues
  // (or SHOWDOWN_MS pass): the next hand is dealt within milliseconds of a knock.
  function openShowdown(next, {lasting = false} = {}) {
    const hand = next.hands[next.hands.length - 1];
    clearTimeout(showdownTimer);
    shown.style.minHeight = "";
    replace(shown, h("section", {class: "showdown-panel", role: "dialog", "aria-label": "hand result"},
      showdown(next, hand),
      h("button", {type: "button", class: "continue primary", onclick: closeShowdown}, "Continue")));
    if (!lasting) showdownTimer = setTimeout(() => foldShowdown(next, hand), SHOWDOWN_MS);
  }

  // Closing by itself, the panel folds to its headline but keeps its height: the board
  // must not jump up under a player's pointer. The space goes when the player closes it.
  function foldShowdown(next, hand) {
    const panel = shown.querySelector(".showdown-panel");
    const height = panel ? panel.offsetHeight : 0;
    shown.style.minHeight = `${shown.offsetHeight}px`;
    const folded = replace(shown, h("section", {class: "showdown-folded", "aria-label": "hand result"},
      h("p", {class: "showdown-title"}, handHeadline(next, hand)),
      h("p", {class: "muted small"}, "The hand's result folded away by itself; its place stays so that "
        + "the table does not move under your pointer."),
      h("p", {}, h("button", {type: "button", class: "show-again", onclick: () => openShowdown(next, {lasting: true})},
        "Show again"), " ",
      h("button", {type: "button", class: "continue", onclick: closeShowdown}, "Close")))).firstChild;
    folded.style.minHeight = `${height}px`;
  }

  function closeShowdown() {
    clearTimeout(showdownTimer);
    shown.style.minHeight = "";
    replace(shown);
  }

  // A seat's own controls: resign while the match runs, give the seat back (a seat
  // claimed from the lobby) or call the match off (its creator) while it waits. Each asks
  // once more on the page before it is sent.
  function seatControls() {
    if (!view || isOver(view)) return null;
    const creator = creatorOf(matchId);
    const buttons = [];
    if (token && view.phase !== "waiting") buttons.push(["resign", "Resign", () => api.resign(matchId, token)]);
    if (token && view.phase === "waiting" && seat.claimed) {
      buttons.push(["leave", "Leave this seat", () => api.leave(matchId, seat.seat, token)]);
    }
    if (creator && view.phase === "waiting") {
      buttons.push(["call-off", "Call the match off", () => api.abort(matchId, creator, "called off by its creator")]);
    }
    if (!buttons.length) return null;
    return h("div", {class: "seat-controls"}, buttons.map(([name, text, send]) => confirming === name
      ? h("span", {class: "confirm"}, `${text}? `,
        h("button", {type: "button", class: `danger ${name}-yes`, onclick: () => control(name, send)}, `Yes, ${text.toLowerCase()}`),
        h("button", {type: "button", onclick: () => { confirming = null; show({...view}); }}, "No"))
      : h("button", {type: "button", class: `control ${name}`, onclick: () => { confirming = name; show({...view}); }}, text)));
  }

  // Giving a seat back revokes its token at once: the stream and every read with it stop
  // before the request goes, so nothing asks with a token that no longer works.
  async function control(name, send) {
    confirming = null;
    const leaving = name === "leave";
    if (leaving) { gone = true; if (live) live.stop(); await reading; }
    try {
      const answer = await send();
      if (leaving) { location.hash = "#/"; return; }
      if (answer && answer.version !== undefined) show(answer);
      else await reread();
    } catch (error) {
      if (leaving) { gone = false; startFollowing(); }
      notice(message, inWords(error), "error");
      await reread();
    }
  }

  // Play again: the rematch of a match that ended with a result (an aborted one has
  // none), followed on the end screen (rematch.js).
  function rematchControl() {
    if (!rematch) rematch = rematchPanel(matchId, seat);
    return rematch.element;
  }

  let reading = null;
  let again = false;
  async function reread() {
    if (gone) return null;
    if (reading) { again = true; return reading; }
    reading = (async () => {
      let delay = RETRY_FIRST_MS;
      try {
        do {
          if (gone) break;
          again = false;
          let next;
          try {
            next = await api.view(matchId, token);
          } catch (error) {
            if (!passing(error)) { notice(message, inWords(error), "error"); break; }
            if (!stale && view) { stale = true; show({...view}); }  // no moves on a stale table
            setConnection("reconnecting");
            await sleep(delay);
            delay = Math.min(delay * 2, RETRY_MAX_MS);
            again = mounted();
            continue;
          }
          const recovered = stale;
          if (stale) { stale = false; notice(message, ""); }
          if (live === null || live.connected) setConnection("live");
          if (recovered || !drawnAlready(next)) show(next);
          else view = next;  // the same table, its presence's times kept for the next redraw
        } while (again);
      } finally {
        reading = null;  // a failure of drawing must not block every later read
      }
    })();
    return reading;
  }

  // A read that brings back the table as drawn (the stream's echo of this seat's own
  // move) is not drawn again: a redraw replaces the buttons under the player's pointer,
  // and a click landing as they are replaced reaches none.
  function drawnAlready(next) {
    return view !== null && !busy && drawing(next) === drawing(view);
  }

  async function act(action) {
    if (busy) return;
    busy = true;
    show({...view});  // redraw without live actions while this one is in flight
    try {
      const answer = await api.act(matchId, token, action, view.version);
      notice(message, "");
      busy = false;
      show(withPresence(answer, view));
    } catch (error) {
      busy = false;
      notice(message, inWords(error), "error");
      await reread();
    }
  }

  // The running clock, redrawn as it runs down. The seat's own sounds when it turns red
  // (and a screen reader says its warning) and again at LAST_CALL_SECONDS, and the tab's
  // title counts down: a player looking elsewhere hears and sees it (a turn that runs out
  // can lose the whole match).
  let warned = null;
  let lastCall = null;
  const ticker = setInterval(() => {
    if (!root.contains(board)) { stop(); return; }
    const running = board.querySelector(".turn-clock[data-deadline]");
    if (!running) return;
    const state = tickClock(running);
    if (running.dataset.mine !== "1" || state !== "warning") return;
    const deadline = running.dataset.deadline;
    if (warned !== deadline) { warned = deadline; beep(); announcer.textContent = running.textContent; }
    if (lastCall !== deadline && Number(running.dataset.left) <= LAST_CALL_SECONDS) { lastCall = deadline; beep(); }
    document.title = `⚠ ${running.dataset.left} s left · Your turn · ${TITLE}`;
  }, CLOCK_TICK_MS);

  reread().then(() => {
    if (!view) return;
    if (view.variant === "gem" && !gemDeckKnown()) learnTheGemDeck();
    // The move log tells the log so far, then the stream from the view's version on;
    // a match already over has nothing more to stream (and is refused a stream ticket).
    log.catchUp(() => api.log(matchId, token));
    if (isOver(view)) setConnection("ended");
    else startFollowing();
    root.dataset.following = "1";
  });

  function startFollowing() {
    live = follow(matchId, {token, after: view.version, onEvent: (type, data) => {
      if (data && data.version) log.hear(data);
      if (type === "end") {
        setConnection("ended");
        // this token no longer works (rotated, or the seat given back): nothing to re-read
        if (data && data.reason !== "match_over") return;
      }
      reread();
    }, onState: (state) => {
      if (state === "open") { setConnection(stale ? "reconnecting" : "live"); reread(); }
      else if (state === "lost") setConnection("reconnecting");
    },
      isOver: async () => { await reread(); return isOver(view) || Boolean(view.ended); }});
  }
  function stop() {
    clearInterval(ticker);
    if (live) live.stop();
    if (rematch) rematch.stop();
  }
  return {stop};
}

// Back to the tournament this tab opened the table from (a table's views name no
// tournament to anybody but its organiser: its tags are the organiser's).
function tournamentLink(matchId) {
  const tournament = tournamentOf(matchId);
  if (!tournament) return null;
  return [" · ", h("a", {href: `#/tournament/${encodeURIComponent(tournament.id)}`, class: "to-tournament"},
    `tournament: ${tournament.name}`)];
}

// The creator's tab holds the other named seats' tokens: links to hand them over.
function handOver(matchId, token) {
  const seats = token ? otherSeats(matchId) : [];
  if (!seats.length) return null;
  return h("details", {class: "hand-over"}, h("summary", {}, "Hand the other seats over"),
    h("p", {class: "small"}, "Each link carries a seat's token in its fragment (never sent to the server); "
      + "open it in another tab or give it to that player."),
    h("ul", {}, seats.map((other) => h("li", {}, `seat ${other.seat} (${other.name}): `,
      h("a", {href: handOverLink(matchId, other), target: "_blank", rel: "noopener", "data-seat-link": other.seat},
        "open as this seat")))));
}
