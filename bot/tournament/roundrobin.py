"""Round robin by Berger tables (FIDE's, C.05 annex 1), for 2 to 16 players.

Players take Berger numbers 1..n in the order given (the caller draws or seeds the
order, and must keep it to re-pair). With an odd number of players a dummy takes the
last number, and whoever meets the dummy sits the round out (the bye).

For n numbers (n even) there are n - 1 rounds. Counting m = n - 1, in round r the
players a and b with a + b = r + 1 (mod m) meet, and the one whose double is r + 1
(mod m) meets player n. Between a and b, White goes to the one from whom the other
is an odd number of steps further on (mod m); player n has White in even rounds.
Board 1 is player n's game; then board j pairs the numbers j steps either side of
player n's opponent. A double round robin plays the table twice, colours swapped the
second time.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.tournament.model import Board, Pairings, Player

MAX_PLAYERS = 16


def rounds_for(players: int, double: bool = False) -> int:
    """How many rounds a round robin of ``players`` has."""
    single = players - 1 if players % 2 == 0 else players
    return single * (2 if double else 1)


def berger_table(n: int) -> list[list[tuple[int, int]]]:
    """Berger numbers (white, black) per round, board 1 first, for ``n`` numbers
    (``n`` even, at least 2)."""
    if n < 2 or n % 2:
        raise ValueError("a Berger table needs an even number of at least two.")
    m = n - 1
    half = (m + 1) // 2  # the inverse of 2 modulo m
    table = []
    for r in range(1, n):
        rival = ((r + 1) * half - 1) % m + 1  # 2 * rival = r + 1 (mod m)
        boards = [(n, rival) if r % 2 == 0 else (rival, n)]
        for j in range(1, n // 2):
            up = (rival + j - 1) % m + 1
            down = (rival - j - 1) % m + 1
            boards.append((up, down) if (down - up) % m % 2 else (down, up))
        table.append(boards)
    return table


def berger_rounds(players: Sequence[Player], double: bool = False) -> list[Pairings]:
    """Every round of a round robin among ``players`` (in Berger number order)."""
    if len(players) < 2:
        raise ValueError("a round robin needs at least two players.")
    if len(players) > MAX_PLAYERS:
        raise ValueError(f"a round robin takes at most {MAX_PLAYERS} players.")
    ids = [p.id for p in players]
    if len(ids) != len(set(ids)):
        raise ValueError("a player is listed twice.")
    n = len(ids) + len(ids) % 2
    by_number = dict(enumerate(ids, start=1))  # the dummy (number n when odd) is absent
    cycles = [False, True] if double else [False]
    rounds: list[Pairings] = []
    for swapped in cycles:
        for boards in berger_table(n):
            real: list[Board] = []
            bye = None
            for white, black in boards:
                if white not in by_number or black not in by_number:
                    bye = by_number.get(white, by_number.get(black))
                    continue
                if swapped:
                    white, black = black, white
                real.append(Board(len(real) + 1, by_number[white], by_number[black]))
            rounds.append(Pairings(len(rounds) + 1, tuple(real), bye))
    return rounds
