"""Post-game analyses of stored matches: every decision of every seat weighed against the
expert's (``domain.bots.analysis``).

``Analyses`` files a request and hands it to background work; ``run_analysis`` is the
work (the ``analyses`` job in real mode; in embedded mode a thread of the server's process
that waits for a child process, ``service.analysis_child``), filing the decisions and a
summary per seat for ``GET .../analyses/{id}``.

Only a finished match is analysed: an analysis of a match in play would tell a seat how
to play its cards, so a match in play or still waiting for players is refused (409
``match_not_finished``). A finished match's log is public in full (its end reveals every hand's
seed, and from then on its views, events and export show every card to everyone), and
each decision shows only what its seat knew then, so an analysis shows nothing the
match's export does not.

An analysis is a function of the log and its parameters (the expert's budget is counted
in iterations and every draw is seeded), so its id is a digest of the match, the version of
its end (``Match.played_version``: a rematch's answers come after it) and the
parameters: asking again answers the same analysis, queued, running or done, and only a
failed one (or one whose record expired) is queued afresh. What asking costs is bounded
at the API too (requests per client address and per match).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from statistics import fmean
from typing import Any

from domain.bots.analysis import LABELS, analyse, thresholds_of
from domain.bots.expert.budget import DEFAULT_MS, MAX_MS
from domain.chain import canonical_json
from domain.match import Match
from domain.variants import VARIANTS
from service.codec import from_record
from service.ports import Analyses as AnalysisRecords
from service.ports import AnalysisFailed, Analyst
from service.usecases.errors import Conflict, NotFound, invalid, storable
from service.usecases.queries import MatchQueries
from service.usecases.repository import Repository
from service.usecases.seats import MatchNotStarted

log = logging.getLogger("rummy.analyses")

MATCH_NOT_FINISHED = "match_not_finished"
INVALID_ANALYSIS = "invalid_analysis"
DEFAULT_SEED = "analysis"
SEED_MAX = 64
SAMPLES_MAX = 1000
SAMPLES = {"gin": 500, "gem": 100, "rummy": 150, "rami": 150}
"""The deals each decision's two moves are appraised on unless asked otherwise: as many as
keep the analysis of an ordinary match (gin or gem to 100 points between two, rummy or
rami of four) at the default budget under a minute of one core's CPU (bench/analyses.py:
26 to 44 s; gin's fast engine appraises cheaply, gem's dice game on the domain's rules
dearly; docs/front-ends.md, *Analyses*)."""
RESULT_TTL_S = 24 * 3600
"""How long a done or failed analysis is kept after it ended. Anybody can have it computed
again (the same parameters give the same decisions), so keeping it longer would only keep
what is recomputable."""
TIME_LIMIT_S = 1800
"""The longest one analysis may run (a job's timeout, a child's): the largest parameters
(a 2000 ms budget, 1000 samples) on a long match can take longer, and then fail."""
OUTCOME = ("started_at", "finished_at", "decisions", "summary", "reason")
"""What a run files beside the request: an analysis run again starts from the request."""
IN_FLIGHT_TTL_S = TIME_LIMIT_S + 1800
"""How long an analysis counts as queued or running unless it ends: past its time limit
and a queue's wait, so a lost job holds its id back for an hour at most."""


def parameters(body: Mapping[str, Any] | None, variant: str) -> dict[str, Any]:
    """The analysis asked for, with the defaults filled in (400 ``invalid_analysis``,
    naming the field, for a value out of bounds)."""
    body = body or {}
    seed = body.get("seed", DEFAULT_SEED)
    if not isinstance(seed, str) or not 1 <= len(seed) <= SEED_MAX:
        raise invalid("seed", f"a seed is a string of 1 to {SEED_MAX} characters",
                      INVALID_ANALYSIS)
    return {"seed": seed,
            "budget_ms": _whole(body, "budget_ms", DEFAULT_MS, MAX_MS),
            "samples": _whole(body, "samples", SAMPLES[variant], SAMPLES_MAX)}


def _whole(body: Mapping[str, Any], name: str, default: int, most: int) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise invalid(name, f"a whole number from 1 to {most}", INVALID_ANALYSIS)
    return value


def analysis_id(match_id: str, played_version: int, asked: Mapping[str, Any]) -> str:
    """The id of the analysis of the match's play, its log up to ``played_version`` (the
    end: a rematch's answers logged after it do not change what is analysed), with these
    parameters."""
    key = {"match": match_id, "played": played_version, **asked}
    return hashlib.sha256(canonical_json(key).encode()).hexdigest()[:32]


def analyse_records(variant: str, records: Sequence[Mapping[str, Any]], seed: str,
                    budget_ms: int, samples: int) -> list[dict[str, Any]]:
    """``service.ports.Analyst`` in this process: the decisions of a finished log, as JSON."""
    events = [from_record(record) for record in records]
    return [decision.to_dict() for decision in analyse(
        VARIANTS[variant], events, seed=seed.encode(), budget_ms=budget_ms, samples=samples)]


def summary(decisions: Sequence[Mapping[str, Any]], players: int) -> list[dict[str, Any]]:
    """Each seat's decisions weighed, how many of each label, and their mean cost."""
    out = []
    for seat in range(players):
        own = [d for d in decisions if d["seat"] == seat]
        costs = [float(d["cost"]) for d in own]
        out.append({"seat": seat, "decisions": len(own),
                    "labels": {label: sum(d["label"] == label for d in own) for label in LABELS},
                    "mean_cost": round(fmean(costs), 2) if costs else 0.0})
    return out


def run_analysis(repository: Repository[Match], records: AnalysisRecords, analyst: Analyst,
                 match_id: str, analysis_id: str) -> bool:
    """Analyse the match as asked and file the decisions; a failure is filed as such,
    with its reason. False when nothing was filed done (failed, or the request expired)."""
    found = records.get(match_id, analysis_id)
    if found is None:
        return False
    asked = {key: value for key, value in found.items() if key not in OUTCOME}
    running = {**asked, "status": "running", "started_at": round(time.time(), 3)}
    records.save(match_id, analysis_id, running)
    chosen = asked["parameters"]
    try:
        log_records = [{"type": e.type, "data": e.data, "schema": e.schema}
                       for e in repository.stored(match_id)]
        decisions = analyst(asked["variant"], log_records, chosen["seed"],
                            chosen["budget_ms"], chosen["samples"])
    except AnalysisFailed as exc:
        log.warning("the analysis %s of match %s failed: %s", analysis_id, match_id, exc)
        failure: Exception = exc
    except Exception as exc:  # noqa: BLE001 - any failure is the analysis's, reported in it
        log.exception("the analysis %s of match %s failed", analysis_id, match_id)
        failure = exc
    else:
        records.save(match_id, analysis_id, {
            **running, "status": "done", "finished_at": round(time.time(), 3),
            "decisions": decisions, "summary": summary(decisions, asked["players"])})
        return True
    records.save(match_id, analysis_id, {**running, "status": "failed",
                                         "finished_at": round(time.time(), 3),
                                         "reason": _reason(failure)})
    return False


def _reason(exc: Exception) -> str:
    if isinstance(exc, AnalysisFailed):
        return str(exc)
    return f"the analysis stopped with an error ({type(exc).__name__}: {exc})"


class Analyses:
    """Requests for a finished match's analysis, and their results."""

    def __init__(self, queries: MatchQueries, records: AnalysisRecords,
                 analyse_later: Callable[[str, str], None],
                 analyst: Analyst = analyse_records) -> None:
        self.queries = queries
        self._records = records
        self._analyse_later = analyse_later
        self._analyst = analyst

    def request(self, match_id: str, token: str | None,
                body: Mapping[str, Any] | None) -> dict[str, Any]:
        """Queue the analysis of the finished match with these parameters, or answer the
        one with the same parameters queued, running or done already."""
        self.queries.access.viewer(match_id, token)
        match = self._finished(match_id)
        asked = parameters(body, match.variant.name)
        found = analysis_id(match_id, match.played_version, asked)
        record = {"status": "queued", "requested_at": round(time.time(), 3),
                  "variant": match.variant.name, "players": len(match.state.scores),
                  "parameters": asked, "thresholds": _thresholds(match)}
        if self._records.open(match_id, found, record):
            self._analyse_later(match_id, found)
        return self.analysis(match_id, found, token)

    def analysis(self, match_id: str, analysis_id: str, token: str | None) -> dict[str, Any]:
        self.queries.access.viewer(match_id, token)
        record = self._records.get(match_id, analysis_id) if storable(match_id) else None
        if record is None:
            raise NotFound("analysis_not_found", f"no analysis {analysis_id!r} of match "
                                                 f"{match_id!r} (or it expired)")
        return {"id": analysis_id, "match_id": match_id, **record}

    def run(self, match_id: str, analysis_id: str) -> bool:
        """Do a requested analysis now (the ``analyses`` job)."""
        return run_analysis(self.queries.repository, self._records, self._analyst, match_id,
                            analysis_id)

    def _finished(self, match_id: str) -> Match:
        """The match, once it is over (409 ``match_not_finished`` before)."""
        try:
            match = self.queries.load(match_id)
        except MatchNotStarted as exc:
            raise Conflict(MATCH_NOT_FINISHED, f"match {match_id!r} waits for players: "
                           "only a finished match is analysed") from exc
        if not match.is_over:
            raise Conflict(MATCH_NOT_FINISHED, f"match {match_id!r} is in play: only a "
                           "finished match is analysed (an analysis would tell a seat how "
                           "to play)")
        return match


def _thresholds(match: Match) -> dict[str, float]:
    """The costs from which a move is an inaccuracy, a mistake, a blunder, in the
    variant's points."""
    return dict(zip(LABELS[1:], thresholds_of(match.state), strict=True))
