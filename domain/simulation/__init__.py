"""Fast simulation for search: gin hands on ints, played thousands of times a second.

A search (the expert bot's information-set Monte Carlo tree search) plays each candidate
move out over many determinised deals. The domain's ``decide``/``evolve`` are built for
the log (frozen states, event objects, card codes); here the same rules run on masks and
small ints (``domain.mask_deadwood``), for two-player, one-deck, joker-free gin with any
other option. ``GinHand.from_state`` starts from a ``GinState`` in play (a determinised
one is an ordinary one), and tests/domain/simulation holds the engine to ``decide`` and
``evolve`` move by move.

    hand = GinHand.from_state(state)         # Unsupported if the table is not 2p/1 deck
    for move in hand.legal():                # ints; moves.action(move) is the action
        child = hand.copy()
        child.apply(move)
        result = child.playout(rng, greedy)  # uniform random by default; any Policy
        value = result.margin(seat)          # points won less points lost
"""

from domain.simulation.gin import OVER, GinHand, Unsupported, cards_of, rules_of
from domain.simulation.policies import Policy, greedy, knocker, uniform
from domain.simulation.showdown import GinRules, HandResult

__all__ = ["OVER", "GinHand", "GinRules", "HandResult", "Policy", "Unsupported", "cards_of",
           "greedy", "knocker", "rules_of", "uniform"]
