"""How a round seats its entrants: the table sizes every format uses.

A two-seat round seats everyone in pairs and gives a bye to the one left over. A round of
larger tables (rummy's 3 to 6 seats) never leaves anyone out while two or more entrants
remain: it uses as few tables as hold everyone (``ceil(n / table_size)``) and spreads the
entrants over them as evenly as possible, so every table has ``table_size`` or
``table_size - 1`` seats whenever that is possible at all, and otherwise (7 entrants at
6-seat tables) tables whose sizes differ by at most one seat, never fewer than two.
"""

from __future__ import annotations

MIN_TABLE = 2
MAX_TABLE = 6


def table_sizes(entrants: int, table_size: int) -> tuple[int, ...]:
    """The seats of each table of a round of ``entrants``, largest first (the top tables
    of a Swiss round are the full ones). A two-seat round of an odd count leaves one
    entrant without a table (the bye); a larger table size leaves someone out only when
    a single entrant remains."""
    if not MIN_TABLE <= table_size <= MAX_TABLE:
        raise ValueError(f"tables have {MIN_TABLE} to {MAX_TABLE} seats, not {table_size}")
    if entrants < 2:
        return ()
    if table_size == 2:
        return (2,) * (entrants // 2)
    tables = -(-entrants // table_size)
    larger = entrants % tables
    return (entrants // tables + 1,) * larger + (entrants // tables,) * (tables - larger)


def unseated(entrants: int, table_size: int) -> int:
    """How many entrants a round of ``entrants`` leaves without a table: the byes."""
    return entrants - sum(table_sizes(entrants, table_size))
