// Rummy and rami by composition: the player picks cards into melds, says what a joker
// stands for, and sees the server's word on the placement (POST .../actions/check: its
// value, whether it opens, or why not) before laying it down; a single picked card can be
// laid off onto any table meld or exchanged for the joker standing for it. The rules stay
// on the server: this only gathers a move.
import {h} from "./dom.js";
import {card, label} from "./cards.js";
import {inWords} from "./words.js";

const ORDER = "A23456789TJQK";
const SUIT_ORDER = "CDHS";
const EVERY_CARD = [...SUIT_ORDER].flatMap((suit) => [...ORDER].map((rank) => `${rank}${suit}`));

// The cards a joker may stand for beside `naturals` (the meld's other cards, as they
// stand): the rank's missing suits in a set, the suit's missing ranks next to the run (as
// far as the meld's jokers reach, an ace at either end) in a run, and any card while the
// meld says neither; the server still decides.
export function jokerChoices(naturals, jokers = 1) {
  const cards = naturals.filter((code) => code && code !== "JK");
  if (!cards.length) return EVERY_CARD;
  const ranks = new Set(cards.map((code) => code[0]));
  const suits = new Set(cards.map((code) => code[1]));
  const choices = [];
  if (ranks.size === 1) {
    const [rank] = ranks;
    choices.push(...[...SUIT_ORDER].filter((suit) => !suits.has(suit)).map((suit) => `${rank}${suit}`));
  }
  if (suits.size === 1 && ranks.size === cards.length) {
    const [suit] = suits;
    const at = cards.map((code) => ORDER.indexOf(code[0]));
    const highAce = at.includes(0) && at.some((n) => n >= 9);
    const places = highAce ? at.map((n) => (n === 0 ? 13 : n)) : at;
    const low = Math.max(Math.min(...places) - jokers, 0);
    const high = Math.min(Math.max(...places) + jokers, 13);
    for (let n = low; n <= high; n += 1) {
      const code = `${ORDER[n % 13]}${suit}`;
      if (!places.includes(n) && !choices.includes(code)) choices.push(code);
    }
  }
  return choices.length ? choices : EVERY_CARD;
}

// A joker's picker: "stands for…" until chosen, then the card.
function jokerPicker(attrs, choices, chosen, onchange) {
  const options = chosen && !choices.includes(chosen) ? [chosen, ...choices] : choices;
  return h("select", {...attrs, "aria-label": "the card this joker stands for", onchange},
    h("option", {value: "", selected: !chosen}, "stands for…"),
    options.map((code) => h("option", {value: code, selected: code === chosen}, label(code))));
}

export function newComposer() {
  return {picked: new Set(), melds: [], stands: {}, answer: null, asked: null};
}

// The composer for a rummy/rami seat that may lay down or lay off now (its turn, drawn).
export function composer(view, state, {check, send, redraw}) {
  const hand = view.hand || [];
  const inMelds = new Set(state.melds.flat());
  const free = hand.map((code, index) => ({code, index})).filter(({index}) => !inMelds.has(index));
  const pick = (index) => {
    if (state.picked.has(index)) state.picked.delete(index); else state.picked.add(index);
    redraw();
  };
  const makeMeld = () => {
    if (state.picked.size < 3) return;
    state.melds.push([...state.picked].sort((a, b) => a - b));
    state.picked.clear();
    ask(view, state, check, redraw);
  };
  const drop = (n) => { state.melds.splice(n, 1); ask(view, state, check, redraw); };
  const discards = (view.legal_actions || []).filter((action) => action.type === "discard");
  const layDown = layDownAction(view, state);
  return h("section", {class: "composer", "data-melds": state.melds.length},
    h("p", {class: "small muted compose-hint"}, "Pick cards: three or more make a meld; one picked card is "
      + "discarded, laid off or swapped for a joker."),
    openingLine(view.opening),
    h("div", {class: "compose-row"},
      h("div", {class: "pickable", "data-discards": JSON.stringify(discards)}, free.map(({code, index}) => h("button", {type: "button",
        class: `pick${state.picked.has(index) ? " picked" : ""}`, "data-index": index, "data-card": code,
        onclick: () => pick(index)}, card(code)))),
      h("div", {class: "compose-actions"},
        discardControl(state, hand, discards, send),
        h("button", {type: "button", class: "make-meld", disabled: state.picked.size < 3, onclick: makeMeld},
          "Make a meld of the picked cards"),
        layOffControls(view, state, hand, send),
        exchangeControls(view, state, hand, send))),
    state.melds.length ? pendingMelds(view, state, {check, send, redraw, drop, layDown}) : null);
}

// The melds composed so far, each with its jokers' pickers, then the server's word on
// them and the button that lays them down: one row where the width allows.
function pendingMelds(view, state, {check, send, redraw, drop, layDown}) {
  const hand = view.hand || [];
  const answer = state.answer;
  return h("div", {class: "compose-row pending-row"},
    h("ol", {class: "pending"}, state.melds.map((indices, n) => h("li", {"data-meld": n},
      indices.map((index) => hand[index] === "JK"
        ? h("span", {class: "joker-slot"}, card("JK"), jokerPicker({class: "stands", "data-index": index},
          jokerChoices(indices.map((other) => hand[other]), indices.filter((other) => hand[other] === "JK").length),
          state.stands[index], (e) => { state.stands[index] = e.target.value; ask(view, state, check, redraw); }))
        : card(hand[index])),
      h("button", {type: "button", class: "drop", title: "take this meld apart", onclick: () => drop(n)}, "✕")))),
    h("p", {class: `composer-result${answer && answer.legal ? " legal" : ""}`,
      "data-legal": answer ? String(answer.legal) : ""}, resultText(answer, layDown, view.opening)),
    h("button", {type: "button", class: "lay-down primary",
      disabled: !(answer && answer.legal && layDown), "data-composed": layDown ? JSON.stringify(layDown) : null,
      onclick: () => send(layDown)}, "Lay these melds down"));
}

// Before the seat has opened: what one lay-down must be worth, and the hand's best.
function openingLine(opening) {
  if (!opening) return null;
  const when = opening.allowed_this_turn ? "" : " (not yet this turn)";
  return h("p", {class: "opening-line", "data-minimum": opening.minimum},
    `To open: melds worth ${opening.minimum} or more in one lay-down${when}; your best is ${opening.best_value}.`);
}

function layDownAction(view, state) {
  const hand = view.hand || [];
  const melds = [];
  for (const indices of state.melds) {
    const cards = indices.map((index) => hand[index]);
    if (!cards.includes("JK")) { melds.push({cards}); continue; }
    const represents = indices.map((index) => hand[index] === "JK" ? state.stands[index] : hand[index]);
    if (represents.some((code) => !code)) return null;
    melds.push({cards, represents});
  }
  return melds.length ? {type: "lay_down", melds} : null;
}

async function ask(view, state, check, redraw) {
  const action = layDownAction(view, state);
  state.answer = null;
  if (action) {
    const asked = JSON.stringify(action);
    state.asked = asked;
    redraw();  // "Checking…" at once: the answer for the melds before this one is stale
    try {
      const answer = await check(action);
      if (state.asked === asked) state.answer = answer;
    } catch (error) {
      state.answer = {legal: false, message: inWords(error)};
    }
  }
  redraw();
}

function resultText(answer, layDown, opening) {
  if (!layDown) return "Choose the card each joker stands for.";
  if (!answer) return "Checking…";
  if (!answer.legal) return `Not yet: ${answer.message}`;
  const laid = (answer.events || []).find((e) => e.type === "MeldsLaidDown");
  if (!laid) return "Legal";
  const needed = opening ? ` of the ${opening.minimum} needed` : "";
  return `Worth ${laid.data.value}${needed}${laid.data.opening ? ": this opens" : ""}`;
}

// Discard the one picked card: the turn's last act, a button of its own.
function discardControl(state, hand, discards, send) {
  if (state.picked.size !== 1) return null;
  const [index] = [...state.picked];
  const discard = discards.find((action) => action.card === hand[index]);
  if (!discard) return null;
  return h("button", {type: "button", class: "discard-picked", "data-action": JSON.stringify(discard),
    onclick: () => { state.picked.clear(); send(discard); }}, `Discard ${label(hand[index])}`);
}

// Lay the one picked card off onto a table meld (a joker says what it stands for).
function layOffControls(view, state, hand, send) {
  if (!view.table || !view.table.length || state.picked.size !== 1) return null;
  const [index] = [...state.picked];
  const code = hand[index];
  const target = h("select", {name: "lay-off-meld"}, view.table.map((meld) =>
    h("option", {value: meld.id}, `#${meld.id} ${meld.cards.map(label).join(" ")}`)));
  const standsFor = (meldId) => {
    const meld = view.table.find((each) => String(each.id) === String(meldId));
    return jokerChoices(meld ? (meld.represents || meld.cards) : []);
  };
  const stands = code === "JK" ? h("span", {class: "lay-off-joker"}) : null;
  const pickFor = () => stands && stands.replaceChildren(
    jokerPicker({name: "lay-off-stands"}, standsFor(target.value), null, () => {}));
  target.addEventListener("change", pickFor);
  pickFor();
  return h("span", {class: "lay-off"}, `Lay ${label(code)} off on `, target, stands,
    h("button", {type: "button", class: "lay-off-send", onclick: () => {
      const action = {type: "lay_off", meld: Number(target.value), card: code};
      if (stands) action.represents = stands.querySelector("select").value;
      state.picked.clear();
      send(action);
    }}, "Lay off"));
}

// Exchange the one picked card for the joker that stands for it in a table meld; only
// melds holding a joker are offered, and the server says whether the card is the one.
function exchangeControls(view, state, hand, send) {
  const withJoker = (view.table || []).filter((meld) => meld.cards.includes("JK"));
  if (!withJoker.length || state.picked.size !== 1) return null;
  const [index] = [...state.picked];
  const code = hand[index];
  if (code === "JK") return null;
  const target = h("select", {name: "exchange-meld"}, withJoker.map((meld) =>
    h("option", {value: meld.id}, `#${meld.id} ${meld.cards.map(label).join(" ")}`)));
  return h("span", {class: "exchange"}, `Swap ${label(code)} for the joker in `, target,
    h("button", {type: "button", class: "exchange-send", onclick: () => {
      state.picked.clear();
      send({type: "exchange_joker", meld: Number(target.value), card: code});
    }}, "Exchange"));
}
