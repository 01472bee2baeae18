"""A tournament's events: its own stream, hash-chained like a match's, in the event catalog.

Every pairing and every recorded result is an event, so a verifier can replay a
tournament's log, pair every round again from the results recorded before it and compare,
and check each recorded result against its match's own log.
"""

from __future__ import annotations

from domain.events import (
    EventType,
    Field,
    array,
    boolean,
    integer,
    mapping,
    nullable,
    number,
    obj,
    string,
)

FORMATS = ("round_robin", "double_round_robin", "swiss", "single_elimination",
           "double_elimination", "arena")
"""The tournament formats the server pairs (docs/tournaments.md)."""

ENTRANT = obj({"name": string(), "external_id": nullable(string()),
               "bot": nullable(string())}, open_=False)
TABLE = obj({"table": integer(0), "match_id": string(), "seats": array(integer(0))},
            open_=False)

TOURNAMENT_CREATED = EventType(
    "TournamentCreated", schema=1, appended_by="the organiser, at the tournament's creation",
    description="A tournament is set up: its entrants in seeding order, the variant and "
                "options of every match, the format and how standings break ties.",
    fields=(
        Field("id", "the tournament's id (its matches' ids are derived from it)",
              schema=string()),
        Field("name", "the tournament's name", schema=string()),
        Field("variant", "the variant every match plays", schema=string()),
        Field("options", "every match's options", schema=mapping()),
        Field("format", "how rounds are paired", schema=string(*FORMATS)),
        Field("table_size", "seats at each table", schema=integer(2)),
        Field("rounds", "the rounds a Swiss plays; null for the other formats",
              schema=nullable(integer(1))),
        Field("tie_breaks", "the tie-breaks after match points, in order",
              schema=array(string())),
        Field("entrants", "the entrants in seeding order (entrant 0 is the top seed); a "
                          "bot entrant names its level", schema=array(ENTRANT)),
        Field("clock", "every match's clock settings, or null", schema=nullable(mapping())),
        Field("ends_at", "an arena's end (epoch seconds): no table is paired after it; null "
                         "for the other formats", schema=nullable(number())),
    ))

ROUND_PAIRED = EventType(
    "RoundPaired", schema=1, appended_by="system step (the tournament's progress)",
    description="A round is paired: its tables (each a match, entrants by seat) and who "
                "sits out with a bye.",
    fields=(
        Field("round", "the round's number, from 1", schema=integer(1)),
        Field("tables", "each table: its number, its match's id, its entrants by seat",
              schema=array(TABLE)),
        Field("byes", "the entrants with a bye this round", schema=array(integer(0))),
    ))

TABLES_OPENED = EventType(
    "TablesOpened", schema=1, appended_by="system step (the tournament's progress)",
    description="Every match of the round exists: players can find their tables.",
    fields=(Field("round", "the round whose matches were created", schema=integer(1)),))

MATCH_RECORDED = EventType(
    "MatchRecorded", schema=1, appended_by="system step (the tournament's progress)",
    description="A table's match has ended and its result counts: each seat's finishing "
                "rank, match points and game points, as read from the match's log.",
    fields=(
        Field("round", "the round", schema=integer(1)),
        Field("table", "the table's number in the round", schema=integer(0)),
        Field("match_id", "the match", schema=string()),
        Field("ranks", "each seat's finishing rank, 0 first (ties share a rank)",
              schema=array(integer(0))),
        Field("points", "each seat's match points (docs/tournaments.md)",
              schema=array(number())),
        Field("game_points", "each seat's score in the match, oriented so more is better",
              schema=array(number())),
        Field("forfeit", "the match ended by a forfeit or was called off",
              schema=boolean()),
    ))

ROUND_COMPLETED = EventType(
    "RoundCompleted", schema=1, appended_by="system step (the tournament's progress)",
    description="Every table of the round has a result.",
    fields=(Field("round", "the round", schema=integer(1)),))

PLAYER_WITHDRAWN = EventType(
    "PlayerWithdrawn", schema=1, appended_by="the organiser",
    description="An entrant leaves the tournament: no later round pairs them; a match "
                "they are playing is theirs to forfeit (the organiser's forfeit control).",
    fields=(
        Field("entrant", "the entrant who withdraws", schema=integer(0)),
        Field("reason", "why, in the organiser's words", schema=string()),
    ))

TOURNAMENT_COMPLETED = EventType(
    "TournamentCompleted", schema=1, appended_by="system step (the tournament's progress)",
    description="The last round is complete: the final standings.",
    fields=(
        Field("standings", "every entrant's final rank and match points, best first",
              schema=array(obj({"rank": integer(1), "entrant": integer(0),
                                "points": number()}, open_=False))),
    ))

TOURNAMENT_ABORTED = EventType(
    "TournamentAborted", schema=1, appended_by="the organiser",
    description="The tournament is called off: no more rounds are paired; matches "
                "already running play on but no longer count.",
    fields=(Field("reason", "why, in the organiser's words", schema=string()),))

RESULTS_RATED = EventType(
    "ResultsRated", schema=1, appended_by="system step (ratings)",
    description="The recorded results up to this count have updated the players' "
                "ratings of the variant, each once, in the order they were recorded.",
    fields=(Field("upto", "how many recorded results are rated now", schema=integer(0)),))

EVENT_TYPES = (TOURNAMENT_CREATED, ROUND_PAIRED, TABLES_OPENED, MATCH_RECORDED,
               ROUND_COMPLETED, PLAYER_WITHDRAWN, TOURNAMENT_COMPLETED, TOURNAMENT_ABORTED,
               RESULTS_RATED)
