// A finished hand and a finished match explained in words, in the rule book's terms
// (docs/rules.md): gin, big gin, a knock, an undercut, the game, shutout and line bonuses,
// a rummy round's minus points and going rummy. Only what the view carries is said; a
// sum is spelled out only where it adds up to the points the server scored.

const rummyFamily = (view) => view.variant === "rummy" || view.variant === "rami";
const nameOf = (view, seat) => (view.seats[seat] && view.seats[seat].name) || `seat ${seat}`;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const listed = (view, numbers) => (numbers || []).map((n, seat) => `${nameOf(view, seat)} ${n}`).join(", ");

// What the match is played to, for the table's heading: "Target 100 points",
// "3 rounds · penalty limit 100".
export function matchGoal(view) {
  const options = view.options || {};
  if (!rummyFamily(view)) return options.target ? `Target ${options.target} points` : null;
  const rounds = options.rounds || view.seats.length;
  const each = options.rounds ? "" : " (each player deals once)";
  return `${plural(rounds, "round")}${each}${options.penalty_limit ? ` · penalty limit ${options.penalty_limit}` : ""}`;
}

// Sentences explaining one finished hand (a round in rummy and rami).
export function handStory(view, hand) {
  if (rummyFamily(view)) return roundStory(view, hand);
  if (hand.result === "draw") {
    return [`Nobody knocked: the hand is drawn (${hand.reason === "turn_cap" ? "the turn limit was reached"
      : "the stock ran down"}) and nobody scores.`];
  }
  const story = (hand.pairings || []).map((pairing) => pairingStory(view, hand.knocker, pairing));
  (hand.gem_parts || []).forEach((parts, seat) => {
    if (parts) story.push(`${nameOf(view, seat)} showed all eight gems: ${parts} Gem Parts points.`);
  });
  return story;
}

// The knocker against one defender (docs/rules.md 1.6, 2.5).
function pairingStory(view, knocker, p) {
  const options = view.options || {};
  const k = nameOf(view, knocker);
  const d = nameOf(view, p.defender);
  const K = p.knocker_deadwood;
  const D = p.defender_deadwood;
  const sum = (parts, total) => (parts.reduce((a, b) => a + b, 0) === p.points ? ` (${total})` : "");
  switch (p.result) {
    case "big_gin":
      return `${k} went big gin (every card melds): no lay-offs, and ${k} scores ${p.points}` +
        `${sum([options.big_gin_bonus ?? 0, D], `the big gin bonus ${options.big_gin_bonus} + ${d}'s ${D} deadwood`)}.`;
    case "gin":
      return `${k} went gin (no deadwood): no lay-offs, and ${k} scores ${p.points}` +
        `${sum([options.gin_bonus ?? 0, D], `the gin bonus ${options.gin_bonus} + ${d}'s ${D} deadwood`)}.`;
    case "undercut": {
      const flat = view.variant === "gem" && !options.undercut_adds_difference;
      const parts = flat ? [options.undercut_bonus ?? 0] : [K - D, options.undercut_bonus ?? 0];
      const how = flat ? `the undercut bonus ${options.undercut_bonus}`
        : `${K} − ${D} + the undercut bonus ${options.undercut_bonus}`;
      return `${k} knocked with ${K} deadwood, but ${d} had ${D === K ? "as little" : "less"} after lay-offs (${D}): ` +
        `an undercut, and ${d} scores ${p.points}${sum(parts, how)}.`;
    }
    case "tie": return `${k} knocked with ${K} deadwood and ${d} had ${D} too: a tie, nobody scores.`;
    default: {
      const floor = options.min_knock_score && p.points === options.min_knock_score && D - K < p.points
        ? ` (at least the minimum knock score ${options.min_knock_score})` : sum([D, -K], `${D} − ${K}`);
      return `${k} knocked with ${K} deadwood against ${d}'s ${D} after lay-offs: ${k} scores ${p.points}${floor}.`;
    }
  }
}

function roundStory(view, hand) {
  if (hand.result === "void") {
    return [`Nobody went out (${hand.reason === "turn_cap" ? "the turn limit was reached" : "the round could not go on"}): ` +
      "the round is void and scores nothing."];
  }
  const winner = nameOf(view, hand.winner);
  return [
    hand.rummy ? `${winner} went rummy, laying every card down in one turn: the others' minus points are doubled.`
      : `${winner} went out: ${winner} scores 0 and the others score their cards left in hand as minus points.`,
    `Minus points this round: ${listed(view, hand.points)}.`,
  ];
}

// Sentences explaining how the match ended: who reached the target, and every bonus.
export function matchStory(view) {
  if (view.ended || view.phase !== "complete") return [];
  const options = view.options || {};
  const winners = (view.winners || []).map((seat) => nameOf(view, seat));
  const final = view.final_scores || view.scores || [];
  if (rummyFamily(view)) {
    const limit = options.penalty_limit && (view.scores || []).some((s) => s >= options.penalty_limit);
    return [
      limit ? `A player reached the penalty limit of ${options.penalty_limit} minus points, which ends the game.`
        : `After ${plural(view.rounds_played ?? (view.hands || []).length, "round")} that counted, the game is over.`,
      `The lowest total of minus points wins: ${listed(view, final)}.`,
    ];
  }
  const reached = (view.scores || []).map((s, seat) => [seat, s]).filter(([, s]) => s >= options.target)
    .map(([seat]) => nameOf(view, seat));
  const story = [`${reached.join(" and ") || "A player"} reached the target of ${options.target} hand points ` +
    `(hand points: ${listed(view, view.scores)}).`];
  for (const bonus of view.bonuses || []) {
    const name = nameOf(view, bonus.seat);
    if (bonus.game) {
      story.push(bonus.shutout ? `${name} takes the shutout bonus of ${bonus.game}: nobody else scored a point.`
        : `${name} takes the game bonus of ${bonus.game}.`);
    }
    if (bonus.line) {
      story.push(`${name} takes the line bonus: ${plural(bonus.hands_won, "hand")} won × ${options.line_bonus} = ${bonus.line}.`);
    }
  }
  story.push(`Final scores${(view.bonuses || []).length ? " with bonuses" : ""}: ${listed(view, final)}; ` +
    `${winners.join(" and ")} ${winners.length > 1 ? "share the win" : "wins"}.`);
  return story;
}
