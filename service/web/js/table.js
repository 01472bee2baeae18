// Draws a match view as the API gives it: the seat's view (its hand, melds, deadwood and
// legal actions), the public view, or a replayed state. Nothing is inferred: a card the
// view does not show is drawn face down.
import {h} from "./dom.js";
import {actionLabel, back, card, cards, gemsOfDeck, label, meldText} from "./cards.js";
import {handStory, matchGoal, matchStory} from "./explain.js";

export const VARIANT_NAMES = {gin: "Gin Rummy", gem: "Gem Rummy", rummy: "Rummy", rami: "Rami"};

// `controls`: buttons of the page around the table (resign, leave, rematch...), drawn in
// the table's own places: seat controls under the hand, the rematch on the end screen.
// `live`: the table is followed now, so its running clock is shown (not in a replay).
export function renderTable(view, {onAction = null, controls = {}, live = false} = {}) {
  const actions = onAction ? view.legal_actions || [] : [];
  const over = isOver(view);
  const waiting = view.phase === "waiting";
  const revealed = !over && view.all_hands ? " revealed" : "";  // a replay shows every hand
  return h("section", {class: `table variant-${view.variant}${over ? " over" : ""}${revealed}`,
      "data-version": view.version, "data-phase": view.phase, "data-turn": view.turn ?? ""},
    heading(view, live),
    over ? matchEnd(view, controls.rematch) : null,
    seats(view),
    over || waiting ? null : middle(view, actions, onAction),
    over || waiting ? null : tableMelds(view),
    view.hand && !over && !waiting ? mine(view, actions, onAction,
      controls.compose && (view.moves || []).some((kind) => kind !== "draw") ? controls.compose(view) : null) : null,
    tableFoot(actionBar(actions, onAction), controls.seat || null),
    history(view));
}

// The moves and the seat's own controls (resign...): one row on a laptop. The row is no
// box of its own elsewhere (display: contents), so a phone's move bar still sticks to the
// bottom of the screen over the whole table.
function tableFoot(actions, controls) {
  return actions || controls ? h("div", {class: "table-foot"}, actions, controls) : null;
}

export const isOver = (view) => view.phase === "complete" || view.phase === "aborted";

const nameOf = (view, seat) => (view.seats[seat] && view.seats[seat].name) || `seat ${seat}`;

// A seat named wherever the table names it: a computer player's with a robot mark and its
// level ("⚙ Basic bot · basic"), so nobody mistakes a bot for a person.
export function seatName(seat, name = seat.name) {
  if (!seat.bot) return name;
  return h("span", {class: "bot-seat", "data-bot": seat.bot.level},
    h("span", {class: "bot-mark", role: "img", "aria-label": "computer player", title: "computer player"}, "⚙"),
    ` ${name}`, h("span", {class: "bot-level"}, ` · ${seat.bot.level}`));
}

const seatNameOf = (view, seat) => (view.seats[seat] ? seatName(view.seats[seat]) : `seat ${seat}`);

// The name of a finished hand's winner, or null (a drawn or void hand).
const handWinner = (view, hand) => (hand.winner !== undefined && hand.winner !== null ? nameOf(view, hand.winner) : null);

function heading(view, live) {
  return h("header", {class: "table-head"},
    h("h1", {}, `${VARIANT_NAMES[view.variant] || view.variant}`,
      view.hand_number ? h("span", {class: "muted"}, ` · hand ${view.hand_number}`) : null),
    h("p", {class: "status", "data-status": view.phase, tabindex: -1}, status(view)),
    live ? turnClock(view) : null,
    matchGoal(view) ? h("p", {class: "goal", "data-goal": ""}, matchGoal(view)) : null,
    view.commitment ? h("p", {class: "muted small mono", title: "SHA-256 of this hand's secret seed"},
      `deal commitment ${view.commitment.slice(0, 16)}…`) : null);
}

function status(view) {
  if (view.ended) return endedText(view);
  if (view.phase === "waiting") return `Waiting for players (${view.open_seats} open seat${view.open_seats === 1 ? "" : "s"})`;
  if (view.phase === "complete") return winners(view);
  if (view.phase === "aborted") return "Aborted";
  if (view.awaiting) return `Awaiting the server's ${view.awaiting} step`;
  if (view.turn === null || view.turn === undefined) return view.phase;
  const who = view.seat === view.turn ? "Your turn" : `${nameOf(view, view.turn)}'s turn`;
  return `${who}: ${view.phase === "upcard" ? "take or pass the upcard" : view.phase}`;
}

function winners(view) {
  const won = winnersOf(view);
  return won.length ? `Complete: ${won.map((seat) => nameOf(view, seat)).join(" and ")} won` : "Complete";
}

const winnersOf = (view) => view.winners
  || (view.winner !== undefined && view.winner !== null ? [view.winner] : []);

// The reasons the server and this client give by themselves: the headline says them
// already ("Bob resigned", "ran out of time", "called off ... by its creator").
const SAID = new Set(["resigned", "time ran out", "called off by its creator"]);

// The reason the server gives a waiting match it called off once its creator had been
// away from the table too long (the lobby's RUMMY_LOBBY_ABANDON_S).
const CREATOR_LEFT = "creator left";

// Who ended the match early, and who won by it: "Fay resigned (had to go). Ann wins."
function endedText(view) {
  const ended = view.ended;
  const why = ended.reason && !SAID.has(ended.reason.trim().toLowerCase()) ? ` (${ended.reason})` : "";
  if (ended.by === "abort" && !view.version && ended.reason === CREATOR_LEFT) {
    return "Called off before it started: its creator left the table. Nobody wins.";
  }
  if (ended.by === "abort") {
    const who = {creator: "its creator", organiser: "the organiser", clock: "the clock"}[ended.initiator] || "the organiser";
    return `${view.version ? "Aborted" : "Called off before it started"} by ${who}${why}: nobody wins.`;
  }
  const seat = nameOf(view, ended.seat);
  const how = {seat: `${seat} resigned`, clock: `${seat} ran out of time`}[ended.initiator]
    || `${seat} was forfeited by the organiser`;
  const won = winnersOf(view).map((s) => nameOf(view, s));
  return `${how}${why}. ${won.length ? `${won.join(" and ")} ${won.length > 1 ? "share the win" : "wins"}.` : ""}`;
}

function seats(view) {
  const over = isOver(view);
  return h("ol", {class: "seats"}, view.seats.map((seat) => {
    const shown = !over && view.all_hands && view.all_hands[seat.seat];
    const classes = ["seat", seat.seat === view.turn ? "turn" : "", seat.seat === view.seat ? "you" : ""];
    return h("li", {class: classes.join(" "), "data-seat": seat.seat},
      h("div", {class: "seat-name"}, over ? null : presence(seat),
        seat.open ? h("em", {}, "open seat") : seatName(seat),
        seat.seat === view.seat ? h("span", {class: "chip"}, "you") : null,
        seat.seat === view.dealer ? h("span", {class: "chip", title: "dealer"}, "D") : null),
      h("div", {class: "seat-facts"},
        h("span", {}, `score ${view.scores ? view.scores[seat.seat] : 0}`),
        seat.opened !== undefined ? h("span", {}, seat.opened ? "opened" : "not opened") : null,
        clockOf(view, seat.seat)),
      shown ? cards(shown, {gems: view.gems})
        : over || seat.seat === view.seat || !seat.hand_count ? null
          : h("span", {class: "cards backs", title: `${seat.hand_count} cards`},
            Array.from({length: Math.min(seat.hand_count, 14)}, () => back()),
            h("span", {class: "muted"}, ` ${seat.hand_count}`)));
  }));
}

// Another player's presence (seats[n].presence); older servers do not send it.
function presence(seat) {
  const p = seat.presence;
  if (!p || seat.bot) return null;  // a bot is played by the server: never away
  const acted = p.last_action_at ? `, last acted ${new Date(p.last_action_at * 1000).toLocaleTimeString()}` : "";
  return h("span", {class: `presence ${p.online ? "online" : "offline"}`,
    title: `${p.online ? "online" : "offline"}${acted}`, "data-online": p.online ? "1" : "0"});
}

// A seat's time bank; the running turn's clock is the turn line's (turnClock).
function clockOf(view, seat) {
  const clock = view.clock;
  if (!clock || !clock.banks) return null;
  return h("span", {class: "clock"}, `bank ${Math.round(clock.banks[seat])} s`);
}

// The seconds a clock turns amber and red in: amber under 30% of the turn's time (at
// least 15 s), red with a warning in words under 10 s.
export const CLOCK_LOW_SECONDS = 15;
export const CLOCK_LOW_SHARE = 0.3;
export const CLOCK_WARNING_SECONDS = 10;

// The running turn's clock, under the turn line and larger than it: a turn that runs out
// costs the seat the match (or a move the server picks), so nobody may miss it. One line
// is kept while the clock stops (a deal, a score) so the table does not jump each turn.
function turnClock(view) {
  const clock = view.clock;
  if (!clock || isOver(view)) return null;
  if (clock.turn_seat === null || clock.turn_seat === undefined || !clock.deadline) {
    return h("p", {class: "turn-clock", "data-clock": "stopped"}, "Clock stopped: no turn is running");
  }
  const element = h("p", {class: "turn-clock", role: "timer", "data-deadline": clock.deadline,
    "data-started": clock.turn_started_at ?? "", "data-mine": view.seat === clock.turn_seat ? "1" : "0",
    "data-who": nameOf(view, clock.turn_seat), "data-on-timeout": clock.on_timeout});
  tickClock(element);
  return element;
}

// Redraws a running clock (turnClock's element) from its deadline; its state ("running",
// "low", "warning", "out") is in data-clock, for the colours and the page's alarm.
export function tickClock(element, now = Date.now() / 1000) {
  const deadline = Number(element.dataset.deadline);
  const started = Number(element.dataset.started) || deadline;
  const left = Math.max(0, Math.ceil(deadline - now));
  const low = Math.max(CLOCK_LOW_SECONDS, CLOCK_LOW_SHARE * (deadline - started));
  const state = left === 0 ? "out" : left <= CLOCK_WARNING_SECONDS ? "warning" : left <= low ? "low" : "running";
  element.dataset.clock = state;
  element.dataset.left = String(left);
  element.textContent = clockText(element.dataset, left, state);
  return state;
}

// What happens at zero, as domain/clocks.py decides it: "forfeit" ends the match with the
// seat's loss; "auto_play" makes a safe move for it (a forfeit when there is none).
function clockText({mine, who, onTimeout}, left, state) {
  const yours = mine === "1";
  if (state === "out") return yours ? "Time is up." : `${who}'s time is up.`;
  if (state !== "warning") return `${yours ? "Your time" : `${who}'s time`}: ${secondsLeft(left)}`;
  const seconds = `${left} second${left === 1 ? "" : "s"} left`;
  if (!yours) return `${who}: ${seconds}`;
  return onTimeout === "auto_play" ? `${seconds}: move, or a safe move is played for you`
    : `${seconds}: move, or you forfeit and lose the match`;
}

const secondsLeft = (left) => `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;

function middle(view, actions, onAction) {
  const draws = actions.filter((a) => a.type === "draw");
  const fromStock = draws.find((a) => a.source === "stock");
  const pile = view.discard_pile || [];
  const depthAction = (index) => draws.find((a) => a.source === "discard" && (a.depth || 1) === pile.length - index);
  return h("div", {class: "middle"},
    h("div", {class: "pile stock"}, h("h2", {}, "Stock"),
      fromStock ? h("button", {class: "card back playable", "data-action": JSON.stringify(fromStock),
        title: actionLabel(fromStock), "aria-label": `${actionLabel(fromStock)} (${view.stock_count} cards left)`,
        onclick: () => onAction(fromStock)}, h("span", {class: "count"}, String(view.stock_count)))
        : back(view.stock_count)),
    h("div", {class: "pile discards"}, h("h2", {}, "Discard pile"),
      pile.length ? h("span", {class: "cards fan"}, pile.map((code, index) =>
        card(code, {action: depthAction(index), onAction, gems: view.gems && view.gems[code]})))
        : h("span", {class: "muted"}, "empty")),
    view.stock ? h("div", {class: "pile"}, h("h2", {}, "Stock order (revealed)"), cards(view.stock)) : null,
    gemFacts(view));
}

function gemFacts(view) {
  if (view.variant !== "gem" || !view.dice) return null;
  return h("div", {class: "pile gem-facts"}, h("h2", {}, "Dice"),
    h("p", {}, `${view.dice.join(" + ")} · knock limit ${view.knock_limit} · diamond `,
      view.diamond ? card(view.diamond) : "—"),
    view.must_meld ? h("p", {class: "warn"}, `must meld ${label(view.must_meld)}`) : null);
}

function tableMelds(view) {
  if (!view.table) return null;
  return h("div", {class: "pile table-melds"}, h("h2", {}, "Table"),
    view.table.length ? h("ul", {class: "melds"}, view.table.map((meld) =>
      h("li", {"data-meld": meld.id}, h("span", {class: "muted"}, `#${meld.id} ${nameOf(view, meld.owner)} `),
        cards(meld.cards, {notes: (meld.represents || []).map((r, i) => meld.cards[i] === "JK" ? label(r) : null)}))))
      : h("span", {class: "muted"}, "no melds yet"));
}

// The seat's hand, once. A rummy or rami seat that may meld, lay off or discard holds
// it in the composer (`composed`): a click there picks a card, and discarding the one
// picked card is a second, separate act, so no click throws a card by accident.
function mine(view, actions, onAction, composed = null) {
  const discards = new Map(actions.filter((a) => a.type === "discard").map((a) => [a.card, a]));
  const hand = (codes) => h("span", {class: "cards"}, codes.map((code) =>
    card(code, {action: discards.get(code), onAction, gems: view.gems && view.gems[code]})));
  const melded = (view.melds || []).map((meld) => h("div", {class: "group meld"},
    h("span", {class: "muted small"}, meld.kind || "meld"), hand(meld.cards)));
  const loose = view.melds ? view.unmatched || [] : view.hand;
  return h("div", {class: "mine", tabindex: -1, role: "region", "aria-labelledby": "your-hand"},
    h("div", {class: "hand-head"}, h("h2", {id: "your-hand"}, "Your hand"), handFacts(view), meldCandidates(view)),
    composed || h("div", {class: "groups"}, melded,
      h("div", {class: "group deadwood"}, h("span", {class: "muted small"}, view.melds ? "deadwood" : "hand"), hand(loose))),
    !composed && view.opening && view.opening.best_melds && view.opening.best_melds.length ? h("p", {class: "small"}, "Best opening: ",
      view.opening.best_melds.map((m) => h("span", {class: "chip"}, meldText(m)))) : null,
    discards.size && !composed ? h("p", {class: "hint"}, "Click a card to discard it.") : null);
}

// What the hand is worth, under the hand's heading: deadwood and the best discard, or
// the minus points and how far the hand is from opening.
function handFacts(view) {
  return h("p", {class: "facts"},
      view.deadwood !== undefined ? h("span", {"data-deadwood": view.deadwood}, `Deadwood ${view.deadwood}`) : null,
      view.best_discard ? h("span", {"data-best-discard": JSON.stringify(view.best_discard.cards)}, ` · best discard ${view.best_discard.cards.map(label).join(" or ")} (leaves ${view.best_discard.deadwood})`) : null,
      view.minus_points !== undefined ? h("span", {}, `Minus points in hand ${view.minus_points}`) : null,
      view.opening ? h("span", {}, ` · opening ${view.opening.best_value}/${view.opening.minimum}${view.opening.can_open_now ? " (can open now)" : ""}`) : null);
}

function meldCandidates(view) {
  if (!view.meld_candidates || !view.meld_candidates.length) return null;
  return h("details", {class: "small meld-candidates"},
    h("summary", {}, `Melds in hand (${view.meld_candidates.length})`),
    view.meld_candidates.map((m) => h("span", {class: "chip"}, meldText(m))));
}

function actionBar(actions, onAction) {
  const buttons = actions.filter((a) => a.type !== "discard" && a.type !== "draw");
  const draws = actions.filter((a) => a.type === "draw");
  if (!buttons.length && !draws.length) return null;
  return h("div", {class: "actions"}, [...draws, ...buttons].map((action) =>
    h("button", {class: `action ${action.type}`, "data-action": JSON.stringify(action),
      onclick: () => onAction(action)}, actionLabel(action))));
}

// The end of the match: who won and how (in words), final scores with bonuses, every
// hand, and an action area for what a seat may do next (the rematch button).
function matchEnd(view, rematch) {
  const won = winnersOf(view);
  const headline = view.ended ? endedText(view)
    : view.phase === "aborted" ? "Aborted: nobody wins."
      : won.length ? `${won.map((s) => nameOf(view, s)).join(" and ")} ${won.length > 1 ? "share the win" : "wins the match"}`
        : "The match is over";
  const bonus = (seat) => (view.bonuses || []).find((b) => b.seat === seat);
  const finals = view.final_scores || view.scores || [];
  return h("section", {class: "match-end", "data-winners": JSON.stringify(won)},
    h("h2", {class: "headline"}, headline),
    story(matchStory(view), "match-story"),
    view.seats.length ? h("table", {class: "final"},
      h("tr", {}, h("th", {}, "player"), h("th", {}, "score"), h("th", {}, "bonuses"), h("th", {}, "final")),
      view.seats.map((seat) => {
        const b = bonus(seat.seat);
        return h("tr", {class: won.includes(seat.seat) ? "winner" : "", "data-seat": seat.seat},
          h("td", {}, seatName(seat)), h("td", {}, String((view.scores || [])[seat.seat] ?? "")),
          h("td", {}, b ? bonusText(b) : "—"), h("td", {}, String(finals[seat.seat] ?? "")));
      })) : null,
    view.hands && view.hands.length && !view.ended ? showdown(view, view.hands[view.hands.length - 1]) : null,
    handsTable(view),
    rematch ? h("div", {class: "end-actions"}, rematch) : null);
}

function bonusText(b) {
  const parts = [b.game ? `game ${b.game}` : null, b.line ? `line ${b.line}` : null,
    b.shutout ? "shutout" : null].filter(Boolean);
  return `${b.total}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

function handsTable(view) {
  if (!view.hands || !view.hands.length) return null;
  return h("table", {class: "hands"},
    h("tr", {}, h("th", {}, "hand"), h("th", {}, "result"), h("th", {}, "won by"),
      view.seats.map((seat) => h("th", {}, seatName(seat)))),
    view.hands.map((hand) => h("tr", {},
      h("td", {}, String(hand.hand_number)), h("td", {}, hand.result || ""),
      h("td", {}, handWinner(view, hand) || "—"),
      view.seats.map((seat) => h("td", {}, String((hand.points || [])[seat.seat] ?? ""))))));
}

// "Hand 2: knock by Ann · Ann wins the hand".
export function handHeadline(view, hand) {
  const winner = handWinner(view, hand);
  return `Hand ${hand.hand_number}: ${hand.result || ""}`
    + `${hand.knocker !== undefined && hand.knocker !== null ? ` by ${nameOf(view, hand.knocker)}` : ""}`
    + `${winner ? ` · ${winner} wins the hand` : ""}`;
}

// One finished hand laid open: each seat's melds (apart), deadwood, lay-offs and points.
export function showdown(view, hand) {
  const gems = view.variant === "gem" ? gemsOfDeck() : null;  // each card's gems, in a gem hand
  return h("div", {class: "showdown-hand", "data-hand": hand.hand_number},
    h("p", {class: "showdown-title"}, handHeadline(view, hand)),
    story(handStory(view, hand), "hand-story"),
    hand.table && hand.table.length && hand.table[0].owner !== undefined
      ? h("div", {class: "showdown table-at-end"}, h("strong", {class: "who"}, "Table"),
        h("span", {class: "melds"}, hand.table.map((meld) => cards(meld.cards)))) : null,
    (hand.seats || []).map((seat) => h("div", {class: "showdown", "data-seat": seat.seat},
      h("strong", {class: "who"}, seatNameOf(view, seat.seat)),
      h("span", {class: "melds"}, (seat.melds || []).map((meld) => h("span", {class: "shown-meld"},
        meld.kind ? h("small", {class: "meld-kind"}, meld.kind) : null, cards(meld.cards, {gems})))),
      seat.unmatched && seat.unmatched.length ? h("span", {class: "deadwood"}, "deadwood ", cards(seat.unmatched, {gems})) : null,
      !seat.melds && seat.hand && seat.hand.length ? h("span", {class: "deadwood"}, "left in hand ", cards(seat.hand, {gems})) : null,
      !seat.melds && seat.hand && !seat.hand.length ? h("span", {class: "muted"}, "went out") : null,
      seat.deadwood !== undefined ? h("span", {class: "muted"}, ` ${seat.deadwood} deadwood`) : null,
      seat.minus_points !== undefined ? h("span", {class: "muted"}, ` ${seat.minus_points} minus points`) : null,
      seat.layoffs && seat.layoffs.length ? h("span", {class: "muted"},
        ` laid off ${seat.layoffs.map((l) => label(l.card)).join(" ")}`) : null,
      hand.points ? h("span", {class: "points"}, ` ${hand.points[seat.seat]} points`) : null,
      hand.gem_parts && hand.gem_parts[seat.seat] ? h("span", {class: "muted"}, ` (gem parts ${hand.gem_parts[seat.seat]})`) : null)));
}

function history(view) {
  if (!view.hands || !view.hands.length) return null;
  return h("div", {class: "history"}, h("h2", {}, "Finished hands"),
    view.hands.map((hand) => h("details", {class: "hand-result"},
      h("summary", {}, `Hand ${hand.hand_number}: ${hand.result || ""}`,
        handWinner(view, hand) ? `, ${handWinner(view, hand)} wins` : "",
        hand.points ? ` · points ${hand.points.join(" / ")}` : ""),
      showdown(view, hand))));
}

// Sentences in words under a result; nothing when there is nothing to explain.
function story(sentences, kind) {
  return sentences.length ? h("div", {class: `story ${kind}`}, sentences.map((text) => h("p", {}, text))) : null;
}
