// The audit replay viewer: a stored match (its log from /events, the table at each step from
// /state?at=N) or an exported NDJSON file (verified and replayed by POST /v1/audits), stepped
// through event by event, and verified: the hash chain and the seed commitments here in the
// browser, the rules and the scores by the server's verifier.
import {analysisPanel} from "./analysis.js";
import {AUDIT_MAX_BYTES, ApiError, FINAL_EVENTS, api} from "./api.js";
import {h, notice, replace} from "./dom.js";
import {namesOf, sentence} from "./moves.js";
import {seatOf} from "./store.js";
import {renderTable} from "./table.js";
import {checkChain, checkCommitments, parseRaw, readNdjson} from "./verify.js";
import {inWords} from "./words.js";

export function openReplay(root, matchId) {
  const message = h("div", {class: "messages"});
  const stage = h("div", {class: "stage"});
  const file = h("input", {type: "file", accept: ".ndjson,.jsonl,application/x-ndjson", name: "log",
    "aria-label": "An exported log file (NDJSON) to replay and verify"});
  const id = h("input", {name: "match", placeholder: "match id", value: matchId || ""});
  file.addEventListener("change", () => file.files[0] && fromFile(file.files[0]));
  replace(root, h("div", {class: "replay"},
    h("h1", {class: "page-title"}, "Replay and verify"),
    h("form", {class: "load", onsubmit: (e) => { e.preventDefault(); if (id.value) location.hash = `#/replay/${id.value.trim()}`; }},
      id, h("button", {type: "submit"}, "Load match"), h("span", {class: "muted"}, " or an exported log: "), file),
    message, stage));

  async function fromMatch() {
    try {
      const text = await api.events(matchId);
      const cache = new Map();
      show(stage, {
        title: `Match ${matchId}`,
        records: parseRaw(text).events,
        events: JSON.parse(text).events,
        state: async (at) => cache.get(at) || cache.set(at, await api.state(matchId, at)).get(at),
        serverReport: async () => serverVerification(matchId),
        matchId,
      });
    } catch (error) {
      notice(message, inWords(error), "error");
    }
  }

  async function fromFile(chosen) {
    if (chosen.size > AUDIT_MAX_BYTES) {
      notice(message, tooLarge(chosen.size), "error");
      return;
    }
    try {
      const text = await chosen.text();
      const records = readNdjson(text);
      const audit = await api.audit(text).catch((error) => { throw refused(error); });
      show(stage, {
        title: `File ${chosen.name}`,
        records,
        events: text.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line)),
        state: async (at) => audit.states[at - 1] || null,
        stateNote: audit.states_note,
        serverReport: async () => audit.report,
      });
    } catch (error) {
      notice(message, error.message, "error");
    }
  }

  if (matchId) fromMatch();
}

const MIB = 1024 * 1024;

function tooLarge(size) {
  return `This log is ${(size / MIB).toFixed(1)} MiB: the server audits logs of at most ` +
    `${AUDIT_MAX_BYTES / MIB} MiB. Verify it offline with \`rummy verify FILE\`, which has no limit.`;
}

// The audit's refusal in words. The server's message names the line that is wrong (400,
// 422), or the limit a log passed and the way round it (413).
function refused(error) {
  if (!(error instanceof ApiError)) return new Error(`The upload failed: ${inWords(error)}`);
  if ([400, 422].includes(error.status)) {
    return new Error(`This file is not a log the server can verify: ${error.detail}`);
  }
  return new Error(`The server refused the log: ${inWords(error)}`);
}

async function serverVerification(matchId) {
  const location = await api.verify(matchId);
  for (let waited = 0; waited < 120; waited += 1) {
    const verification = await api.verification(location);
    if (verification.status === "finished") return verification.report;
    await new Promise((done) => setTimeout(done, 500));
  }
  throw new Error("the server's verification did not finish within a minute");
}

function show(stage, log) {
  const total = log.events.length;
  if (!total) { replace(stage, h("p", {class: "muted"}, "The log is empty (the match waits for players).")); return; }
  let step = total;
  const slider = h("input", {type: "range", min: 1, max: total, value: step, name: "step", "aria-label": "step"});
  const position = h("span", {class: "position"});
  const event = h("div", {class: "event"});
  const table = h("div", {class: "replay-table"});
  const verdict = h("div", {class: "verdict-box"});
  const names = namesOf(log.events);
  // The move list: every event in words; click one to jump to it.
  const moves = h("ol", {class: "moves"}, log.events.map((shown, index) =>
    h("li", {"data-move": index + 1, class: `move type-${shown.type}`},
      h("button", {type: "button", class: "link", onclick: () => go(index + 1)}, sentence(shown, names)))));
  const go = (to) => { step = Math.max(1, Math.min(total, to)); slider.value = step; draw(); };
  slider.addEventListener("input", () => go(Number(slider.value)));

  async function draw() {
    const at = step;
    const shown = log.events[at - 1];
    position.textContent = `event ${at} of ${total}`;
    replace(event, describe(shown, names));
    event.dataset.version = String(at);
    moves.querySelectorAll(".current").forEach((li) => li.classList.remove("current"));
    const current = moves.querySelector(`[data-move='${at}']`);
    if (current) { current.classList.add("current"); current.scrollIntoView({block: "nearest"}); }
    event.dataset.type = shown.type;
    const state = await log.state(at).catch((error) => ({error}));
    if (at !== step) return;
    if (state && !state.error) replace(table, renderTable(state));
    else replace(table, h("p", {class: "muted"}, state && state.error ? state.error.message
      : log.stateNote || "No table for this step."));
    table.dataset.version = String(at);
  }

  replace(stage, h("div", {},
    h("h2", {}, `${log.title}: ${total} events`),
    h("div", {class: "controls"},
      h("button", {type: "button", class: "first", title: "first event", onclick: () => go(1)}, "◀◀"),
      h("button", {type: "button", class: "prev", onclick: () => go(step - 1)}, "◀ prev"),
      slider,
      h("button", {type: "button", class: "next", onclick: () => go(step + 1)}, "next ▶"),
      h("button", {type: "button", class: "last", title: "last event", onclick: () => go(total)}, "▶▶"),
      position,
      h("button", {type: "button", class: "verify primary", onclick: () => verifyLog(verdict, log)}, "Verify")),
    verdict, analysable(log) ? analysisPanel(log.matchId, {moves, names, token: (seatOf(log.matchId) || {}).token})
      : null,
    h("div", {class: "replay-body"}, h("nav", {class: "move-list"}, h("h3", {}, "Moves"), moves),
      h("div", {class: "replay-step"}, event, table))));
  draw();
}

// A stored match that was dealt and has ended can be analysed by the server (a file has
// no match there).
const analysable = (log) => Boolean(log.matchId) && log.events.some((event) => event.type === "HandDealt")
  && log.events.some((event) => FINAL_EVENTS.has(event.type));

// One event: in words first; its type, time and raw fields for an auditor, folded.
function describe(event, names) {
  return [h("h3", {}, `#${event.version} ${sentence(event, names)}`),
    h("p", {class: "muted small"}, `${event.type} · ${new Date(event.ts * 1000).toISOString()}`,
      event.redacted ? h("span", {class: "chip"}, "redacted for you") : null),
    h("details", {class: "raw"}, h("summary", {}, "the event as logged"),
      event.command ? h("p", {class: "small"}, `command: ${JSON.stringify(event.command)}`) : null,
      h("pre", {class: "data", tabindex: 0, "aria-label": "the event's fields"}, JSON.stringify(event.data, null, 1)))];
}

async function verifyLog(box, log) {
  replace(box, h("p", {class: "muted"}, "Verifying…"));
  let browser;
  let server;
  try {
    browser = [await checkChain(log.records), await checkCommitments(log.records)];
  } catch (error) {
    browser = [{name: "in the browser", ok: false, checked: 0, first_failure: {reason: error.message}, notes: []}];
  }
  try { server = await log.serverReport(); } catch (error) {
    server = {ok: false, checks: [{name: "server", ok: false, checked: 0, first_failure: {reason: error.message}, notes: []}]};
  }
  const ok = browser.every((c) => c.ok) && server.ok;
  replace(box, h("section", {class: `verdict ${ok ? "good" : "bad"}`, "data-verdict": ok ? "ok" : "failed"},
    h("h3", {}, ok ? "Verified: the log is intact, every deal is fair, every move and score is what the rules make of it"
      : "NOT verified"),
    checksTable("In this browser (WebCrypto SHA-256)", browser),
    checksTable("By the server's verifier (rummy verify: rules and scores recomputed)", server.checks)));
}

function checksTable(title, checks) {
  return h("table", {class: "checks"}, h("caption", {}, title),
    checks.map((c) => h("tr", {"data-check": c.name, "data-ok": c.ok ? "1" : "0"},
      h("td", {}, c.ok ? "✔" : "✘"), h("td", {}, c.name), h("td", {}, `${c.checked} checked`),
      h("td", {class: "small"}, c.first_failure ? `version ${c.first_failure.version}: ${c.first_failure.reason}` : "",
        (c.notes || []).map((note) => h("div", {class: "muted"}, note))))));
}
