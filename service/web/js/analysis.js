// The post-game analysis of a finished match in the replay viewer (docs/front-ends.md,
// "Analyses"): asked of the server, read until it is done, and shown beside the move
// list: each decision's label as a badge on its move, the expert's choice in words where
// it differs and what the move played cost, and each seat's counts of the labels. The
// server refuses a match in play: an analysis would tell a seat how to play its cards.
import {api} from "./api.js";
import {actionLabel} from "./cards.js";
import {h, replace} from "./dom.js";
import {inWords} from "./words.js";

const POLL_MS = 1000;
const PATIENCE_MS = 30 * 60 * 1000;  // the server's own time limit for one analysis

const LABEL_WORDS = {fine: "fine", inaccuracy: "inaccuracy", mistake: "mistake", blunder: "blunder"};
const COUNTED = ["inaccuracy", "mistake", "blunder"];

const REFUSALS = {
  match_not_finished: "The match is still being played: it can be analysed once it is over.",
  match_over: "This match was called off before it started: it has nothing to analyse.",
  match_not_found: "The server no longer keeps this match.",
  analysis_not_found: "The server no longer keeps this analysis (it expired): ask again.",
  rate_limited: "Too many analyses asked from here: wait a moment and try again.",
};

function refusalText(error) {
  return inWords(error, REFUSALS);
}

// An action object with its keys in order, to tell two spellings of one move apart from
// two moves.
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
  }
  return value;
}

export const sameMove = (a, b) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

// The expert's move after "the expert would": "draw from the stock", "discard 7♥".
export function expertWords(action) {
  if (action.type === "big_gin") return "declare big gin";
  const text = actionLabel(action);
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export const points = (cost) => `${Number(cost).toFixed(1)} point${Number(cost).toFixed(1) === "1.0" ? "" : "s"}`;

// One decision beside its move: the label, and the expert's choice if it differs.
export function decisionNote(decision) {
  const differs = !sameMove(decision.played, decision.expert);
  return h("span", {class: "analysis-note", "data-label": decision.label, "data-index": decision.index},
    h("span", {class: `badge label-${decision.label}`}, LABEL_WORDS[decision.label] || decision.label),
    differs ? h("span", {class: "expert-choice"},
      ` the expert would ${expertWords(decision.expert)}; this move cost ${points(decision.cost)}`) : null);
}

// Each seat's counts, and from which cost a move earns each label.
export function summaryTable(analysis, names) {
  const thresholds = analysis.thresholds || {};
  return h("div", {class: "analysis-summary"},
    h("table", {class: "analysis-seats"},
      h("tr", {}, h("th", {}, "player"), h("th", {}, "decisions"),
        COUNTED.map((label) => h("th", {}, `${label === "inaccuracy" ? "inaccuracies" : `${label}s`}`)),
        h("th", {}, "mean cost")),
      (analysis.summary || []).map((seat) => h("tr", {"data-seat": seat.seat},
        h("td", {}, names[seat.seat] || `seat ${seat.seat}`), h("td", {}, String(seat.decisions)),
        COUNTED.map((label) => h("td", {"data-count": label}, String((seat.labels || {})[label] || 0))),
        h("td", {}, points(seat.mean_cost))))),
    COUNTED.every((label) => thresholds[label] !== undefined)
      ? h("p", {class: "muted small"}, `A move is an inaccuracy from ${points(thresholds.inaccuracy)} lost against the `
        + `expert's choice, a mistake from ${points(thresholds.mistake)}, a blunder from ${points(thresholds.blunder)} `
        + `(expected points of the hand; ${analysis.parameters ? `${analysis.parameters.samples} deals weighed a decision` : ""}).`)
      : null);
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// The "Analyse" control of a finished match's replay. `moves` is the move list (its items
// carry data-move, the event's version); `names` the seats' names; `token` a seat's, if
// this tab holds one (the server lets anybody who may see the match ask).
export function analysisPanel(matchId, {moves, names, token = null}) {
  const status = h("p", {class: "analysis-status", role: "status"});
  const result = h("div", {class: "analysis-result"});
  const budget = h("input", {type: "number", name: "analysis-budget", min: 1, max: 2000, placeholder: "server's default"});
  const samples = h("input", {type: "number", name: "analysis-samples", min: 1, max: 1000, placeholder: "server's default"});
  const start = h("button", {type: "button", class: "analyse primary", onclick: () => run()}, "Analyse");
  const element = h("section", {class: "analysis", "data-analysis": "none"},
    h("h3", {}, "Post-game analysis"),
    h("p", {class: "muted small"}, "Every decision of every seat weighed against the expert's choice, with what "
      + "each seat knew then."),
    h("div", {class: "analysis-start"}, start,
      h("details", {class: "analysis-depth"}, h("summary", {}, "Depth"),
        h("label", {}, "Expert's budget per move (ms) ", budget),
        h("label", {}, "Deals weighed per decision ", samples))),
    status, result);

  function asked() {
    const body = {};
    if (budget.value) body.budget_ms = Number(budget.value);
    if (samples.value) body.samples = Number(samples.value);
    return body;
  }

  function say(text, state, kind = "") {
    status.textContent = text;
    status.className = `analysis-status ${kind}`.trim();
    element.dataset.analysis = state;
  }

  async function run() {
    start.disabled = true;
    say("Asking the server for the analysis…", "asked");
    try {
      const done = await follow(await api.analyse(matchId, token, asked()));
      if (done.status === "failed") say(`The analysis failed: ${done.reason || "no reason given"}.`, "failed", "notice error");
      else show(done);
    } catch (error) {
      say(refusalText(error), "refused", "notice error");
    } finally {
      start.disabled = false;
    }
  }

  async function follow(location) {
    const since = Date.now();
    for (;;) {
      const analysis = await api.analysis(location, token);
      if (analysis.status === "done" || analysis.status === "failed") return analysis;
      const seconds = Math.round((Date.now() - since) / 1000);
      say(`Analysing (${analysis.status === "queued" ? "waiting for its turn" : "weighing the decisions"}, ${seconds} s)…`,
        analysis.status);
      if (Date.now() - since > PATIENCE_MS) throw new Error("The analysis did not finish: try again later.");
      await sleep(POLL_MS);
    }
  }

  function show(analysis) {
    const decisions = analysis.decisions || [];
    moves.querySelectorAll(".analysis-note").forEach((note) => note.remove());
    for (const decision of decisions) {
      const move = moves.querySelector(`[data-move='${decision.index + 1}']`);
      if (move) move.append(decisionNote(decision));
    }
    say(`${decisions.length} decision${decisions.length === 1 ? "" : "s"} weighed: each has its label in the move list.`, "done");
    replace(result, summaryTable(analysis, names));
  }

  return element;
}
