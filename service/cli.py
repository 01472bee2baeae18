"""The ``rummy`` command: verify an exported log offline; export or replay a stored match.

``rummy verify FILE`` needs no server and no Redis: it is what a third party runs on an
export. ``export`` and ``replay`` are for operators and read the store named by
``REDIS_URL`` (and ``RUMMY_KEY_PREFIX``) directly, with the organiser's full view.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

import click

from domain.audit import parse_ndjson, verify
from domain.tournaments.audit import is_tournament_export, verify_tournament
from domain.variants import VARIANTS
from domain.viewer import Viewer


@click.group()
def main() -> None:
    """Audit and operate the rummy game server."""


@main.command("verify")
@click.argument("log", type=click.File("r", encoding="utf-8"))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify_command(log: TextIO, as_json: bool) -> None:
    """Verify an exported NDJSON log (- for stdin), a match's or a tournament's (its log
    and its matches' logs); exit 0 when every check passes, 1 when one fails, 2 when the
    file is not a log."""
    try:
        records = parse_ndjson(log)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        click.echo(f"Error: not an NDJSON log: {exc}", err=True)
        sys.exit(2)
    if not all(isinstance(record, dict) for record in records):
        click.echo("Error: not an NDJSON log: every line must be a JSON object", err=True)
        sys.exit(2)
    tournament = is_tournament_export(records)
    checked = verify_tournament(records, VARIANTS) if tournament else verify(records, VARIANTS)
    report = checked.to_dict()
    click.echo(json.dumps(report, indent=2) if as_json else _summary(report, tournament))
    sys.exit(0 if report["ok"] else 1)


def _summary(report: dict[str, Any], tournament: bool = False) -> str:
    lines = [f"{report['variant']} {'tournament' if tournament else 'match'}, "
             f"{report['events']} events, final phase {report['final_phase']}"]
    for check in report["checks"]:
        failure = check["first_failure"]
        verdict = "ok" if failure is None else \
            f"FAILED at version {failure['version']}: {failure['reason']}"
        lines.append(f"  {check['name']:<10} {verdict} ({check['checked']} checked)")
        lines += [f"      note: {note}" for note in check["notes"]]
    lines.append("VERIFIED" if report["ok"] else
                  f"NOT VERIFIED: first failure at version {report['first_failing_version']}")
    return "\n".join(lines)


def _wiring() -> Any:
    from service.bootstrap import bootstrap
    from service.config import Settings

    settings = Settings.from_env()
    if settings.embedded:
        raise click.ClickException("set REDIS_URL to the server's Redis "
                                   "(the embedded server's data lives in its own process)")
    return bootstrap(settings, in_process=False)


def _queries() -> Any:
    return _wiring().queries


@main.command("export")
@click.argument("match_id")
@click.option("-o", "--output", type=click.File("w", encoding="utf-8"), default="-",
              help="Where to write the NDJSON (default: stdout).")
def export_command(match_id: str, output: TextIO) -> None:
    """Write a match's full log as NDJSON (what GET .../export gives the organiser)."""
    from domain.chain import canonical_json
    from service.usecases.errors import AppError

    try:
        records = _queries().log_for(match_id, Viewer.full())
    except AppError as exc:
        raise click.ClickException(exc.message) from exc
    for record in records:
        output.write(canonical_json(record) + "\n")


@main.command("replay")
@click.argument("match_id")
@click.option("--at", type=click.IntRange(min=1), required=True,
              help="Show the match right after this event version.")
@click.option("--seat", type=click.IntRange(min=0), default=None,
              help="Show it as this seat would have seen it (default: the full view).")
def replay_command(match_id: str, at: int, seat: int | None) -> None:
    """Print the match's state after event AT, rebuilt from its events."""
    from service.usecases.errors import AppError

    try:
        viewer = Viewer.full() if seat is None else Viewer.for_seat(seat)
        view = _queries().state_for(match_id, viewer, at)
    except AppError as exc:
        raise click.ClickException(exc.message) from exc
    click.echo(json.dumps(view, indent=2, sort_keys=True))


@main.command("reconcile")
@click.option("--scan", is_flag=True, required=True,
              help="Look at every match and tournament (not only the indexed ones).")
def reconcile_command(scan: bool) -> None:
    """Index every match and tournament that owes background work (a system step, a
    running turn's clock, a bot's move, a tournament's progress), so the workers'
    reconciler drives it (once, after upgrading from a release without the index)."""
    from service.usecases.reconciling import index_everything

    wiring = _wiring()
    marked = index_everything(wiring.aggregates(), wiring.index)
    click.echo(json.dumps(marked, sort_keys=True))
