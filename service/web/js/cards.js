// Cards as the API writes them: rank then suit ("7H", "TD"), "JK" for a joker.
import {h} from "./dom.js";

const SUITS = {C: "♣", D: "♦", H: "♥", S: "♠"};
const RANKS = {T: "10"};

// The gem deck's card -> gems (GET /v1/variants, the gem variant's `cards`), once a page
// has read it: a finished hand's cards carry their gems, which its view no longer lists.
let gemDeck = null;
export const knowGemDeck = (cards) => { gemDeck = cards; };
export const gemDeckKnown = () => gemDeck !== null;
export const gemsOfDeck = () => gemDeck || {};

export function label(code) {
  if (code === "JK") return "Joker";
  return `${RANKS[code[0]] || code[0]}${SUITS[code[1]] || code[1]}`;
}

// One face-up card; `action` makes it a button that sends that legal action.
export function card(code, {action, onAction, note, gems} = {}) {
  const red = code[1] === "D" || code[1] === "H";
  const face = code === "JK"
    ? [h("span", {class: "rank"}, "★"), h("span", {class: "suit"}, "JK")]
    : [h("span", {class: "rank"}, RANKS[code[0]] || code[0]), h("span", {class: "suit"}, SUITS[code[1]])];
  const extra = [note ? h("small", {class: "note"}, note) : null,
    gems && gems.length ? h("small", {class: "gems", title: gems.join(", ")}, gems.map(gem)) : null];
  const attrs = {class: `card${red ? " red" : ""}${code === "JK" ? " joker" : ""}`, title: label(code),
    "data-card": code};
  if (!action) return h("span", attrs, face, extra);
  return h("button", {...attrs, class: `${attrs.class} playable`, "data-action": JSON.stringify(action),
    title: `${actionLabel(action)}`, "aria-label": actionLabel(action), onclick: () => onAction(action)}, face, extra);
}

// A gem as its initial (the eight are G, E, M, P, A, R, T, S: "GEM PARTS") in its colour,
// its name on hover and for screen readers: whole names did not fit under a card.
const gem = (name) => h("abbr", {class: `gem gem-${name}`, title: name, "aria-label": name},
  name.charAt(0).toUpperCase());

export function back(count) {
  const said = count === undefined ? "hidden card" : `${count} cards`;
  return h("span", {class: "card back", title: said, role: "img", "aria-label": said},
    count === undefined ? "" : h("span", {class: "count"}, String(count)));
}

export function cards(codes, options = {}) {
  return h("span", {class: "cards"}, codes.map((code, index) =>
    card(code, {...options, note: options.notes && options.notes[index],
      gems: options.gems && options.gems[code]})));
}

const meldText = (meld) => meld.cards.map((code, i) =>
  code === "JK" && meld.represents ? `JK=${label(meld.represents[i])}` : label(code)).join(" ");

// What a legal action does, in words, for its button.
export function actionLabel(action) {
  switch (action.type) {
    case "pass": return "Pass the upcard";
    case "draw":
      if (action.source === "stock") return "Draw from the stock";
      return action.depth > 1 ? `Take ${action.depth} cards from the pile` : "Take the discard";
    case "discard": return `Discard ${label(action.card)}`;
    case "knock": return `Knock, discarding ${label(action.discard)}`;
    case "big_gin": return "Big gin";
    case "lay_down": return `Lay down ${action.melds.map(meldText).join(" · ")}`;
    case "lay_off": return `Lay ${label(action.card)} off on meld #${action.meld}` +
      (action.represents ? ` as ${label(action.represents)}` : "");
    case "exchange_joker": return `Exchange ${label(action.card)} for the joker of meld #${action.meld}`;
    default: return JSON.stringify(action);
  }
}

export {meldText};
