// Rummy and rami by composition: the player picks cards into melds, says what a joker
// stands for, and sees the server's word on the placement (POST .../actions/check: its
// value, whether it opens, or why not) before laying it down; a single picked card can be
// laid off onto any table meld or exchanged for the joker standing for it. The rules stay
// on the server: this only gathers a move.
import {h} from "./dom.js";
import {card, label} from "./cards.js";
import {inWords} from "./words.js";

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
  const answer = state.answer;
  const layDown = layDownAction(view, state);
  return h("section", {class: "composer", "data-melds": state.melds.length},
    h("h4", {}, "Compose a move"),
    h("p", {class: "small muted"}, "Pick three or more cards and make them a meld; a joker needs the card it stands for. "
      + "The server checks each placement before you lay it down."),
    openingLine(view.opening),
    h("div", {class: "pickable"}, free.map(({code, index}) => h("button", {type: "button",
      class: `pick${state.picked.has(index) ? " picked" : ""}`, "data-index": index, "data-card": code,
      onclick: () => pick(index)}, card(code)))),
    h("div", {class: "compose-actions"},
      h("button", {type: "button", class: "make-meld", disabled: state.picked.size < 3, onclick: makeMeld},
        "Make a meld of the picked cards"),
      layOffControls(view, state, hand, send),
      exchangeControls(view, state, hand, send)),
    state.melds.length ? h("ol", {class: "pending"}, state.melds.map((indices, n) => h("li", {"data-meld": n},
      indices.map((index) => hand[index] === "JK"
        ? h("span", {class: "joker-slot"}, card("JK"), h("input", {class: "stands", size: 3, maxlength: 2,
          placeholder: "9H", value: state.stands[index] || "", "data-index": index,
          onchange: (e) => { state.stands[index] = e.target.value.trim().toUpperCase(); ask(view, state, check, redraw); }}))
        : card(hand[index])),
      h("button", {type: "button", class: "drop", title: "take this meld apart", onclick: () => drop(n)}, "✕")))) : null,
    state.melds.length ? h("p", {class: `composer-result${answer && answer.legal ? " legal" : ""}`,
      "data-legal": answer ? String(answer.legal) : ""}, resultText(answer, layDown, view.opening)) : null,
    state.melds.length ? h("button", {type: "button", class: "lay-down primary",
      disabled: !(answer && answer.legal && layDown), "data-composed": layDown ? JSON.stringify(layDown) : null,
      onclick: () => send(layDown)}, "Lay these melds down") : null);
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
  if (!layDown) return "Say what each joker stands for (a card code such as 9H).";
  if (!answer) return "Checking…";
  if (!answer.legal) return `Not yet: ${answer.message}`;
  const laid = (answer.events || []).find((e) => e.type === "MeldsLaidDown");
  if (!laid) return "Legal";
  const needed = opening ? ` of the ${opening.minimum} needed` : "";
  return `Worth ${laid.data.value}${needed}${laid.data.opening ? ": this opens" : ""}`;
}

// Lay the one picked card off onto a table meld (a joker says what it stands for).
function layOffControls(view, state, hand, send) {
  if (!view.table || !view.table.length || state.picked.size !== 1) return null;
  const [index] = [...state.picked];
  const code = hand[index];
  const target = h("select", {name: "lay-off-meld"}, view.table.map((meld) =>
    h("option", {value: meld.id}, `#${meld.id} ${meld.cards.map(label).join(" ")}`)));
  const stands = code === "JK" ? h("input", {name: "lay-off-stands", size: 3, maxlength: 2, placeholder: "9H"}) : null;
  return h("span", {class: "lay-off"}, `Lay ${label(code)} off on `, target, stands,
    h("button", {type: "button", class: "lay-off-send", onclick: () => {
      const action = {type: "lay_off", meld: Number(target.value), card: code};
      if (stands) action.represents = stands.value.trim().toUpperCase();
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
