"""The values a tournament is made of: players, rounds as paired, rounds as played,
and what the played rounds say about each player (points, colours, opponents, byes).

Everything here is a frozen value. A tournament's whole state is its players and the
list of its played rounds (``RoundResult``); pairing and standings are functions of
them, so a stored tournament can be re-paired and checked round by round.

Points are floats that are always multiples of one half (results, byes), and
tiebreaks are sums of products of halves: every value is exact in binary floating
point, so equal scores compare equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

WHITE = "white"
BLACK = "black"

# A game's result, from White's side.
RESULTS: dict[str, tuple[float, float]] = {
    "1-0": (1.0, 0.0),
    "0-1": (0.0, 1.0),
    "1/2-1/2": (0.5, 0.5),
}


class Format(StrEnum):
    """How a tournament pairs its rounds."""

    SWISS = "swiss"
    ROUND_ROBIN = "round-robin"


@dataclass(frozen=True)
class Player:
    """A registered player. ``rating`` orders players within a score group; equal
    ratings are ordered by ``id`` (the lower id ranks higher)."""

    id: int
    rating: float
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or f"#{self.id}"


@dataclass(frozen=True)
class Board:
    """One pairing of a round: board ``number`` (from 1), who has White and Black."""

    number: int
    white: int
    black: int


@dataclass(frozen=True)
class Pairings:
    """A round as paired. ``bye`` is the player who sits out and is given the bye's
    points. ``compromises`` names the rules that had to give way because no pairing
    obeyed them all (``"repeat"``, ``"second bye"``, ``"colour"``); it is empty in
    every round that could be paired by the rules."""

    round_no: int
    boards: tuple[Board, ...]
    bye: int | None = None
    compromises: tuple[str, ...] = ()

    def player_ids(self) -> list[int]:
        ids = [p for b in self.boards for p in (b.white, b.black)]
        return ids + ([self.bye] if self.bye is not None else [])


@dataclass(frozen=True)
class Game:
    """A finished game of a round. ``result`` is ``"1-0"``, ``"0-1"`` or
    ``"1/2-1/2"``. A ``forfeit`` was decided without being played: its points count,
    but for pairing and tiebreaks the two did not meet (they may be paired again,
    its colours are not counted, and each side has an unplayed round)."""

    white: int
    black: int
    result: str
    forfeit: bool = False

    def __post_init__(self) -> None:
        if self.result not in RESULTS:
            raise ValueError(f"a game's result is 1-0, 0-1 or 1/2-1/2, not {self.result!r}.")
        if self.white == self.black:
            raise ValueError("a player cannot play against themselves.")

    def points_of(self, player: int) -> float:
        white, black = RESULTS[self.result]
        return white if player == self.white else black

    def opponent_of(self, player: int) -> int:
        return self.black if player == self.white else self.white


@dataclass(frozen=True)
class RoundResult:
    """A round as played: its games, and the bye (worth ``bye_points``). Players in
    neither (withdrawn, or not paired) have an unplayed round worth nothing."""

    round_no: int
    games: tuple[Game, ...]
    bye: int | None = None
    bye_points: float = 1.0

    @classmethod
    def from_pairings(
        cls, pairings: Pairings, results: Mapping[int, str], *, bye_points: float = 1.0
    ) -> RoundResult:
        """The played round of ``pairings``, with ``results`` by board number."""
        games = tuple(Game(b.white, b.black, results[b.number]) for b in pairings.boards)
        return cls(pairings.round_no, games, pairings.bye, bye_points)

    def player_ids(self) -> list[int]:
        ids = [p for g in self.games for p in (g.white, g.black)]
        return ids + ([self.bye] if self.bye is not None else [])


@dataclass
class Record:
    """What the played rounds say about one player (for pairing)."""

    points: float = 0.0
    colours: list[str] = field(default_factory=list)  # of played games, in order
    met: dict[int, int] = field(default_factory=dict)  # opponent -> played games
    byes: int = 0  # rounds scored without playing: byes and forfeit wins

    @property
    def colour_difference(self) -> int:
        """Games with White minus games with Black."""
        return self.colours.count(WHITE) - self.colours.count(BLACK)


def records(player_ids: Iterable[int], history: Sequence[RoundResult]) -> dict[int, Record]:
    """Each player's record after ``history`` (players who left are kept too)."""
    found: dict[int, Record] = {pid: Record() for pid in player_ids}
    for rnd in history:
        if rnd.bye is not None:
            bye = found.setdefault(rnd.bye, Record())
            bye.points += rnd.bye_points
            bye.byes += 1
        for game in rnd.games:
            for pid, colour in ((game.white, WHITE), (game.black, BLACK)):
                rec = found.setdefault(pid, Record())
                points = game.points_of(pid)
                rec.points += points
                if game.forfeit:
                    rec.byes += points == 1.0
                else:
                    rec.colours.append(colour)
                    opp = game.opponent_of(pid)
                    rec.met[opp] = rec.met.get(opp, 0) + 1
    return found


def check_round(rnd: RoundResult | Pairings) -> None:
    """Raise ``ValueError`` if a player appears twice in one round."""
    ids = rnd.player_ids()
    if len(ids) != len(set(ids)):
        raise ValueError(f"round {rnd.round_no} names a player twice.")
