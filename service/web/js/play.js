// A live table: a seat's (with its token from this tab's sessionStorage) or a spectator's.
// Every stream event re-reads the view; actions are only ever ones the view lists.
import {api, follow} from "./api.js";
import {h, notice, replace} from "./dom.js";
import {handOverLink, otherSeats, seatOf} from "./store.js";
import {renderTable, secondsLeft} from "./table.js";

const OVER = new Set(["complete", "aborted"]);

export function openTable(root, matchId, {spectate = false} = {}) {
  const seat = spectate ? null : seatOf(matchId);
  const token = seat && seat.token;
  const message = h("div", {class: "messages"});
  const board = h("div", {class: "board"});
  let view = null;
  let busy = false;
  let live = null;
  let renders = 0;

  replace(root, h("div", {class: "table-page", "data-match": matchId, "data-mode": token ? "seat" : "spectator"},
    h("p", {class: "muted small"}, token ? `Match ${matchId} · seat ${seat.seat} (${seat.name || "you"})`
      : `Match ${matchId} · watching`, " · ", h("a", {href: `#/watch/${matchId}`}, "spectator view"),
      " · ", h("a", {href: `#/replay/${matchId}`}, "replay & verify")),
    handOver(matchId, token), message, board));

  function show(next) {
    // A stream re-read and an action's answer may cross: never go back to an older version.
    if (view && next.version < view.version) return;
    view = next;
    renders += 1;
    board.dataset.renders = String(renders);
    replace(board, renderTable(view, {onAction: token && !busy ? act : null}));
  }

  let reading = null;
  let again = false;
  async function reread() {
    if (reading) { again = true; return reading; }
    reading = (async () => {
      do {
        again = false;
        try { show(await api.view(matchId, token)); } catch (error) { notice(message, error.message, "error"); }
      } while (again);
      reading = null;
    })();
    return reading;
  }

  async function act(action) {
    if (busy) return;
    busy = true;
    show({...view});  // redraw without live actions while this one is in flight
    try {
      const answer = await api.act(matchId, token, action, view.version);
      notice(message, "");
      busy = false;
      show(answer);
    } catch (error) {
      busy = false;
      notice(message, error.code === "version_conflict" ? "The table moved on; here it is now." : error.message, "error");
      await reread();
    }
  }

  const ticker = setInterval(() => {
    if (!root.contains(board)) { clearInterval(ticker); if (live) live.stop(); return; }
    board.querySelectorAll("[data-deadline]").forEach((el) => {
      el.textContent = el.textContent.replace(/[^·]*left$/, ` ${secondsLeft(Number(el.dataset.deadline))}`);
    });
  }, 1000);

  reread().then(() => {
    if (!view) return;
    live = follow(matchId, {token, after: view.version, onEvent: () => reread(),
      isOver: async () => { await reread(); return OVER.has(view.phase) || Boolean(view.ended); }});
    root.dataset.following = "1";
  });
  return {stop: () => { clearInterval(ticker); if (live) live.stop(); }};
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
