"""Elimination brackets, single and double, paired round by round from the results so far.

A bracket is a fixed tree of two-seat matches, laid out from the entry list alone; the
results only say who fills each slot. ``pair`` replays the results and byes round by
round through that tree and returns the next round, so a verifier that pairs every round
again from a tournament's log gets the same tables.

Seeding. The entry list is padded with empty slots to the next power of two (the bracket
size). The first round meets seed 1 with the last, seed 2 with the second last and so on,
in the standard order that keeps the top two seeds apart until the final, the top four
until the semi-finals (for 16: 1-16, 8-9, 4-13, 5-12, 2-15, 7-10, 3-14, 6-11, from the
top of the bracket down). The empty slots fall against the top seeds, who get a bye in
round 1: they sit out the round and are in round 2's match.

Rounds. A round is every match whose two entrants are known and that is not decided yet;
in double elimination winners' and losers' matches share rounds. A match that was paired
and has no result when the next round is paired stays open and is paired again. Call
``pair`` once the round's tables have their results and its byes are recorded. Every
result must be of a match the bracket had open in its round (``ValueError`` otherwise);
a bye decides its entrant's open match of that round, and is ignored if there is none.

Draws. A drawn match (0.5 each) still sends one entrant on: the one with more game
points, then the better seed (the lower entrant number). A forfeited table's game points
do not count, so a drawn forfeit goes to the better seed.

Withdrawals. A withdrawn entrant loses every match they would still play: when such a
match is open, their opponent gets a bye in that round and goes on (the caller may record
the bye, or a forfeit result, which decides the match the same way), so the bracket never
waits on them. A withdrawn entrant is never seated nor given a bye; one who drops into the
losers' bracket loses there too. A match between two withdrawn entrants goes to the better
seed without a table, in the same round; if nothing else is open then, it is decided at
once.

Double elimination. The losers' bracket takes the winners' bracket's losers: round 1's
losers meet each other in bracket order; the losers of winners' round r (r >= 2) drop in
against the losers' bracket survivors, crossing the bracket so that an entrant does not
meet again soon the one they lost to, or the ones they beat: round 2's losers come in
reversed, round 3's with halves swapped, later rounds' with neighbours swapped. Between
two drops the losers' bracket survivors meet each other. An empty slot in the losers'
bracket is a bye taken at once, without a round. The winners' bracket winner meets the
losers' bracket winner in the grand final (seat 0 the winners' bracket winner); if the
losers' bracket winner wins it, both have lost once and a reset match decides
(Challonge's default).

Placings. Single elimination places the losers of each round together: 1st, 2nd, 3rd-4th,
5th-8th. Double elimination places 1st and 2nd by the final, then the losers of each
losers' bracket round together: 3rd, 4th, 5th-6th, 7th-8th for 8 entrants. Until the
bracket is decided, everyone still in shares the top group.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

from domain.tournaments.model import Bye, Pairing, Result, Table

WINNERS = "winners"
LOSERS = "losers"
FINAL = "final"
"""The sides of a bracket: the winners' and losers' brackets and the final (the grand
final is its round 1, the reset its round 2)."""

SEED = "seed"
WINNER = "winner"
LOSER = "loser"
"""Where a slot's entrant comes from: a seed of the entry list, or the winner or loser of
an earlier match."""

WAITING = "waiting"
READY = "ready"
PLAYED = "played"
BYE = "bye"
VOID = "void"
"""A bracket match's status: waiting for an entrant (or, the reset, for the grand final);
ready to play; played at a table; decided without one (an empty slot, a withdrawn
entrant, a recorded bye); void, never to be played (both slots empty, or a reset the
grand final made needless)."""

_Item = TypeVar("_Item")

_EMPTY = -1
"""A slot no entrant will ever fill: a seed past the entry list, or fed from one."""


@dataclass(frozen=True)
class Slot:
    """One side of a bracket match: where its entrant comes from (``source`` is ``SEED``
    with ``feeder`` the seed, or ``WINNER``/``LOSER`` with ``feeder`` the index of the
    feeding match in ``Bracket.matches``), the entrant once known, and whether it is
    empty (no entrant will ever come)."""

    source: str
    feeder: int
    entrant: int | None
    empty: bool


@dataclass(frozen=True)
class BracketMatch:
    """A match of the bracket as a front end draws it: its side, its round within that
    side (1-based), its place in that round (0 at the top), its two slots, its winner
    once decided, its status and the tournament round it was decided in (None for byes
    taken at once, or while undecided)."""

    side: str
    round: int
    number: int
    slots: tuple[Slot, Slot]
    winner: int | None
    status: str
    decided_in: int | None


@dataclass(frozen=True)
class Bracket:
    """The whole bracket as the results so far leave it. ``matches`` lists the winners'
    bracket by round, then the losers' bracket by round, then the final; a slot's
    ``feeder`` points into it."""

    entrants: int
    double: bool
    size: int
    matches: tuple[BracketMatch, ...]
    champion: int | None


def bracket_size(entrants: int) -> int:
    """The bracket's width: the entry list padded to the next power of two."""
    size = 1
    while size < entrants:
        size *= 2
    return size


def seed_order(size: int) -> tuple[int, ...]:
    """The seeds (0-based) of the first round's slots, top to bottom, two by two per
    match. Each doubling puts every seed against its mirror in the larger field, so the
    top 2 seeds can meet only in the final, the top 4 only in the semi-finals."""
    order: tuple[int, ...] = (0,)
    while len(order) < size:
        mirror = 2 * len(order) - 1
        order = tuple(seat for seed in order for seat in (seed, mirror - seed))
    return order


def drop_order(losers: Sequence[_Item], winners_round: int) -> tuple[_Item, ...]:
    """The order in which winners' round ``winners_round``'s losers (listed top to
    bottom) meet the losers' bracket survivors (top to bottom): round 1's in bracket
    order, round 2's reversed, round 3's with halves swapped, later ones with neighbours
    swapped. Each crosses the bracket, so that a dropped entrant meets survivors from the
    far side rather than those they have just beaten."""
    if winners_round <= 1:
        return tuple(losers)
    if winners_round == 2:
        return tuple(reversed(losers))
    if winners_round == 3:
        half = len(losers) // 2
        return (*losers[half:], *losers[:half])
    flipped: list[_Item] = []
    for first in range(0, len(losers) - 1, 2):
        flipped += (losers[first + 1], losers[first])
    if len(losers) % 2:
        flipped.append(losers[-1])
    return tuple(flipped)


@dataclass(frozen=True)
class _Feed:
    source: str
    feeder: int


@dataclass(frozen=True)
class _Node:
    """A match of the layout; ``reset`` marks the grand final's reset, played only if
    the losers' bracket winner wins the grand final."""

    side: str
    round: int
    number: int
    feeds: tuple[_Feed, _Feed]
    reset: bool = False


@cache
def _layout(size: int, double: bool) -> tuple[_Node, ...]:
    """The bracket's matches for a power-of-two ``size``, every match after the matches
    that feed it."""
    nodes: list[_Node] = []

    def add(side: str, round_: int, feeds: Sequence[tuple[_Feed, _Feed]]) -> list[int]:
        start = len(nodes)
        nodes.extend(_Node(side, round_, number, pair_)
                     for number, pair_ in enumerate(feeds))
        return list(range(start, len(nodes)))

    if size < 2:
        return ()
    order = seed_order(size)
    winners = [add(WINNERS, 1, [(_Feed(SEED, order[i]), _Feed(SEED, order[i + 1]))
                                for i in range(0, size, 2)])]
    while len(winners[-1]) > 1:
        last = winners[-1]
        winners.append(add(WINNERS, len(winners) + 1,
                           [(_Feed(WINNER, last[i]), _Feed(WINNER, last[i + 1]))
                            for i in range(0, len(last), 2)]))
    if not double:
        return tuple(nodes)
    final = winners[-1][0]
    champion_of_losers = _Feed(LOSER, final)
    if len(winners) > 1:
        first = [_Feed(LOSER, i) for i in drop_order(winners[0], 1)]
        survivors = add(LOSERS, 1, [(first[i], first[i + 1]) for i in range(0, len(first), 2)])
        for winners_round in range(2, len(winners) + 1):
            dropped = drop_order([_Feed(LOSER, i) for i in winners[winners_round - 1]],
                                 winners_round)
            round_ = nodes[survivors[0]].round + 1
            survivors = add(LOSERS, round_, [(_Feed(WINNER, survivor), drop)
                                             for survivor, drop in zip(survivors, dropped,
                                                                       strict=True)])
            if len(survivors) > 1:
                survivors = add(LOSERS, round_ + 1,
                                [(_Feed(WINNER, survivors[i]), _Feed(WINNER, survivors[i + 1]))
                                 for i in range(0, len(survivors), 2)])
        champion_of_losers = _Feed(WINNER, survivors[0])
    finalists = (_Feed(WINNER, final), champion_of_losers)
    nodes.append(_Node(FINAL, 1, 0, finalists))
    nodes.append(_Node(FINAL, 2, 0, finalists, reset=True))
    return tuple(nodes)


@dataclass(frozen=True)
class _Outcome:
    winner: int
    loser: int
    round: int | None
    status: str


def match_winner(result: Result) -> int:
    """Who a two-seat result sends on: more match points; on a draw, more game points
    (not counted at a forfeited table); then the better seed."""
    if len(result.seats) != 2:
        raise ValueError(f"an elimination match has two seats, not {result.seats}")

    def standing(seat: int) -> tuple[float, float, int]:
        game = 0.0 if result.forfeit else result.game_points[seat]
        return (result.points[seat], game, -result.seats[seat])

    return result.seats[max((0, 1), key=standing)]


class _Replay:
    """The bracket replayed from its results: which matches are decided and how, and
    which are open in the next round."""

    def __init__(self, entrants: int, results: Sequence[Result], byes: Sequence[Bye],
                 double: bool, withdrawn: frozenset[int]) -> None:
        if entrants < 0:
            raise ValueError(f"a bracket of {entrants} entrants")
        self.entrants = entrants
        self.withdrawn = withdrawn
        self.layout = _layout(bracket_size(entrants), double)
        self.decided: dict[int, _Outcome] = {}
        self.round = 1
        self.open: list[int] = []
        results_by_round: dict[int, list[Result]] = defaultdict(list)
        byes_by_round: dict[int, list[Bye]] = defaultdict(list)
        for result in results:
            results_by_round[result.round].append(result)
        for bye in byes:
            byes_by_round[bye.round].append(bye)
        if any(round_ < 1 for round_ in (*results_by_round, *byes_by_round)):
            raise ValueError("rounds are numbered from 1")
        self._run(results_by_round, byes_by_round)

    def _run(self, results: Mapping[int, Sequence[Result]],
             byes: Mapping[int, Sequence[Bye]]) -> None:
        """Round by round up to the last one recorded: open the matches ready, decide
        them from the round's records; stop at the first round not recorded yet."""
        last = max((*results, *byes), default=0)
        self._settle()
        while True:
            self.open = self._open()
            played, sat_out = results.get(self.round, ()), byes.get(self.round, ())
            if not self.open:
                if any(results.get(later) for later in range(self.round, last + 1)):
                    raise ValueError(f"results from round {self.round} on, after the "
                                     "bracket was decided")
                return
            if (not any(self._live(i) for i in self.open)
                    and not self._recorded(played, sat_out)):
                for i in self.open:
                    self._decide_without_table(i)
                self._settle()
                continue
            if self.round > last:
                return
            self._play(played, sat_out)
            self._settle()
            self.round += 1

    def slots(self, index: int) -> tuple[int | None, int | None]:
        """The entrants of a match's slots: None while unknown, ``_EMPTY`` if empty."""
        first, second = self.layout[index].feeds
        return self._fed(first), self._fed(second)

    def _fed(self, feed: _Feed) -> int | None:
        if feed.source == SEED:
            return feed.feeder if feed.feeder < self.entrants else _EMPTY
        outcome = self.decided.get(feed.feeder)
        if outcome is None:
            return None
        return outcome.winner if feed.source == WINNER else outcome.loser

    def _live(self, index: int) -> bool:
        return any(entrant is not None and entrant >= 0 and entrant not in self.withdrawn
                   for entrant in self.slots(index))

    def _open(self) -> list[int]:
        return [i for i, node in enumerate(self.layout)
                if i not in self.decided and None not in self.slots(i)
                and not (node.reset and i - 1 not in self.decided)]

    def _settle(self) -> None:
        """Decide at once what needs no round: an empty slot past the winners' first
        round (its entrant goes straight on), and a reset the grand final made needless."""
        for index, node in enumerate(self.layout):
            if index in self.decided:
                continue
            if node.reset:
                final = self.decided.get(index - 1)
                if final is not None and final.winner == self.slots(index - 1)[0]:
                    self.decided[index] = _Outcome(_EMPTY, _EMPTY, None, VOID)
                continue
            first, second = self.slots(index)
            if first is None or second is None or (node.side == WINNERS and node.round == 1):
                continue
            if _EMPTY in (first, second):
                winner = second if first == _EMPTY else first
                self.decided[index] = _Outcome(winner, _EMPTY, None,
                                               BYE if winner != _EMPTY else VOID)

    def _recorded(self, played: Sequence[Result], sat_out: Sequence[Bye]) -> bool:
        """Whether any of the round's records is about a match open now."""
        open_ = [self.slots(i) for i in self.open]
        return (any(frozenset(result.seats) in {frozenset(s) for s in open_} for result in played)
                or any(bye.entrant in slots for bye in sat_out for slots in open_))

    def _play(self, played: Sequence[Result], sat_out: Sequence[Bye]) -> None:
        """Decide the round's open matches: by their results, by recorded byes, then the
        byes the bracket gives (an empty first-round slot, a withdrawn opponent)."""
        tables = {frozenset(slots): i for i in self.open
                  if _EMPTY not in (slots := self.slots(i))}
        for result in played:
            index = tables.get(frozenset(result.seats))
            if len(result.seats) != 2 or index is None or index in self.decided:
                raise ValueError(f"round {self.round}: a table of {result.seats} does not "
                                 "fit the bracket")
            winner = match_winner(result)
            loser = result.seats[1] if winner == result.seats[0] else result.seats[0]
            self.decided[index] = _Outcome(winner, loser, self.round, PLAYED)
        for bye in sat_out:
            for index in self.open:
                slots = self.slots(index)
                if index not in self.decided and bye.entrant in slots:
                    other = slots[1] if bye.entrant == slots[0] else slots[0]
                    self.decided[index] = _Outcome(bye.entrant, _int(other), self.round, BYE)
        for index in self.open:
            if index not in self.decided:
                self._decide_without_table(index)

    def _decide_without_table(self, index: int) -> None:
        """An open match with an empty slot or a withdrawn entrant goes to the other
        entrant; between two withdrawn entrants, to the better seed. Any other stays
        open."""
        first, second = (_int(entrant) for entrant in self.slots(index))
        if _EMPTY in (first, second):
            winner = second if first == _EMPTY else first
        else:
            staying = [e for e in (first, second) if e not in self.withdrawn]
            if len(staying) == 2:
                return
            winner = staying[0] if staying else min(first, second)
        loser = second if winner == first else first
        self.decided[index] = _Outcome(winner, loser, self.round, BYE)

    def _needless_reset(self) -> bool:
        reset = self.decided.get(len(self.layout) - 1)
        return reset is not None and reset.status == VOID

    def pairing(self) -> Pairing | None:
        """The open matches as the next round: a table for two entrants still in, a bye
        for one whose slot is empty or whose opponent withdrew."""
        if not self.open:
            return None
        tables: list[Table] = []
        byes: list[int] = []
        for index in self.open:
            slots = [_int(entrant) for entrant in self.slots(index)]
            staying = [e for e in slots if e != _EMPTY and e not in self.withdrawn]
            if len(staying) == 2:
                tables.append(Table(len(tables), (slots[0], slots[1])))
            else:
                byes.extend(staying)
        return Pairing(tuple(tables), tuple(byes))

    def champion(self) -> int | None:
        if self.entrants == 1:
            return 0
        if not self.layout:
            return None
        last = len(self.layout) - 1
        if self.layout[last].reset:
            reset, final = self.decided.get(last), self.decided.get(last - 1)
            if reset is not None and reset.status != VOID:
                return reset.winner
            return final.winner if reset is not None and final is not None else None
        decided = self.decided.get(last)
        return decided.winner if decided is not None else None

    def eliminated(self) -> dict[int, tuple[int, int]]:
        """Each eliminated entrant's stage, higher for a later exit: the winners' round
        lost in (single elimination); the losers' round lost in, or the final, for the
        grand final's loser once no reset follows and for the reset's loser (double)."""
        stages: dict[int, tuple[int, int]] = {}
        for index, outcome in self.decided.items():
            node = self.layout[index]
            if outcome.loser == _EMPTY:
                continue
            if node.side == LOSERS or (node.side == WINNERS and not self.layout[-1].reset):
                stages[outcome.loser] = (0, node.round)
            elif node.side == FINAL and (node.reset or self._needless_reset()):
                stages[outcome.loser] = (1, node.round)
        return stages


def _int(entrant: int | None) -> int:
    if entrant is None:
        raise ValueError("a slot of an open match is unknown")
    return entrant


def pair(entrants: int, results: Sequence[Result], byes: Sequence[Bye], *,
         double: bool = False, withdrawn: frozenset[int] = frozenset()) -> Pairing | None:
    """The next round of the bracket: a table for every match whose two entrants are
    known and that is not decided yet, a bye for an entrant whose slot's opponent is
    empty (round 1) or withdrawn; None once the bracket is decided."""
    return _Replay(entrants, results, byes, double, withdrawn).pairing()


def champion(entrants: int, results: Sequence[Result], byes: Sequence[Bye], *,
             double: bool = False, withdrawn: frozenset[int] = frozenset()) -> int | None:
    """The bracket's winner, or None while it is undecided."""
    return _Replay(entrants, results, byes, double, withdrawn).champion()


def placings(entrants: int, results: Sequence[Result], byes: Sequence[Bye], *,
             double: bool = False,
             withdrawn: frozenset[int] = frozenset()) -> tuple[tuple[int, ...], ...]:
    """Final places as groups, best first, each group's entrants in entry order: everyone
    still in (the champion alone once decided), then the eliminated, a later exit placing
    higher and those out at the same stage sharing their places."""
    replay = _Replay(entrants, results, byes, double, withdrawn)
    stages = replay.eliminated()
    still_in = tuple(e for e in range(entrants) if e not in stages)
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    for entrant, stage in stages.items():
        groups[stage].append(entrant)
    out = tuple(tuple(sorted(groups[stage])) for stage in sorted(groups, reverse=True))
    return (still_in, *out) if still_in else out


def bracket(entrants: int, results: Sequence[Result], byes: Sequence[Bye], *,
            double: bool = False, withdrawn: frozenset[int] = frozenset()) -> Bracket:
    """The bracket for display: every match with its slots, winner and status."""
    replay = _Replay(entrants, results, byes, double, withdrawn)
    matches = []
    for index, node in enumerate(replay.layout):
        entrants_in = replay.slots(index)
        slots = tuple(Slot(feed.source, feed.feeder,
                           entrant if entrant is not None and entrant >= 0 else None,
                           entrant == _EMPTY)
                      for feed, entrant in zip(node.feeds, entrants_in, strict=True))
        outcome = replay.decided.get(index)
        if outcome is not None:
            winner = outcome.winner if outcome.winner >= 0 else None
            status, decided_in = outcome.status, outcome.round
        else:
            winner, decided_in = None, None
            status = READY if index in replay.open else WAITING
        matches.append(BracketMatch(node.side, node.round, node.number,
                                    (slots[0], slots[1]), winner, status, decided_in))
    return Bracket(entrants, double, bracket_size(entrants), tuple(matches),
                   replay.champion())
