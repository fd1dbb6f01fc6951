"""Standings: points, then tiebreaks.

- Swiss: points, Buchholz, Buchholz Cut 1, direct encounter.
- Round robin: points, Sonneborn-Berger, direct encounter.

Definitions (every round played so far counts, for every player listed):

- A round is *played* by a player who played a game in it. Byes, forfeits (won or
  lost) and rounds missed after a withdrawal are *unplayed* rounds. Points count all
  of them: a game's result, a forfeit's result, the bye's points, nothing for a
  missed round.
- An opponent's *tiebreak score* is their points from played games plus one half for
  each of their unplayed rounds: a bye, a forfeit or a withdrawal neither lifts nor
  sinks the players who met them, as if those rounds had been draws.
- **Buchholz**: the sum, over a player's rounds, of the opponent's tiebreak score for
  each played round, and of the player's own points for each unplayed round (a
  neutral stand-in: an opponent as strong as the player turned out to be).
- **Buchholz Cut 1**: Buchholz without its smallest part.
- **Sonneborn-Berger**: the sum, over played games, of the opponent's tiebreak score
  for a win and half of it for a draw. Unplayed rounds add nothing.
- **Direct encounter**: among players level on points and on every tiebreak before
  it, the points each scored in played games against the others, provided every two
  of them played each other; otherwise it is 0 for all of them (not applicable).

Players level on everything share a rank (the number of players strictly ahead,
plus one); within a shared rank they are listed by rating, then id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from bot.tournament.model import Format, Player, RoundResult, check_round

TIEBREAKS: dict[Format, tuple[str, ...]] = {
    Format.SWISS: ("buchholz", "buchholz_cut1", "direct_encounter"),
    Format.ROUND_ROBIN: ("sonneborn_berger", "direct_encounter"),
}

TIEBREAK_TITLES = {
    "buchholz": "Buchholz",
    "buchholz_cut1": "Buchholz Cut 1",
    "sonneborn_berger": "Sonneborn-Berger",
    "direct_encounter": "Direct encounter",
}


@dataclass(frozen=True)
class Standing:
    """One row of the standings. ``tiebreaks`` follow ``TIEBREAKS[format]``."""

    rank: int
    player: Player
    points: float
    tiebreaks: tuple[float, ...]
    wins: int
    draws: int
    losses: int
    unplayed: int


@dataclass
class _Line:
    """A player's rounds: (opponent or None, points, played)."""

    rounds: list[tuple[int | None, float, bool]]

    @property
    def points(self) -> float:
        return sum(points for _, points, _ in self.rounds)

    @property
    def tiebreak_score(self) -> float:
        return sum(points if played else 0.5 for _, points, played in self.rounds)


def standings(
    format: Format | str, players: Sequence[Player], rounds: Sequence[RoundResult]
) -> list[Standing]:
    """The standings after ``rounds`` among ``players`` (everyone who took part,
    withdrawn players included), best first."""
    fmt = Format(format)
    lines = _lines(players, rounds)
    names = TIEBREAKS[fmt]
    keys: dict[int, list[float]] = {}
    for p in players:
        line = lines[p.id]
        keys[p.id] = [line.points] + [
            _tiebreak(name, line, lines) for name in names if name != "direct_encounter"
        ]
    # Direct encounter, within each group level on everything before it.
    groups: dict[tuple[float, ...], list[int]] = {}
    for pid, key in keys.items():
        groups.setdefault(tuple(key), []).append(pid)
    for members in groups.values():
        scores = _direct_encounter(members, lines)
        for pid in members:
            keys[pid].append(scores[pid])
    order = sorted(players, key=lambda p: ([-x for x in keys[p.id]], -p.rating, p.id))
    rows: list[Standing] = []
    ahead = 0
    for k, p in enumerate(order):
        key = keys[p.id]
        if k and key != keys[order[k - 1].id]:
            ahead = k  # everyone listed so far is strictly ahead
        line = lines[p.id]
        played = [points for _, points, was_played in line.rounds if was_played]
        rows.append(
            Standing(
                rank=ahead + 1,
                player=p,
                points=key[0],
                tiebreaks=tuple(key[1:]),
                wins=played.count(1.0),
                draws=played.count(0.5),
                losses=played.count(0.0),
                unplayed=len(line.rounds) - len(played),
            )
        )
    return rows


def _lines(players: Sequence[Player], rounds: Sequence[RoundResult]) -> dict[int, _Line]:
    lines = {p.id: _Line([]) for p in players}
    for rnd in rounds:
        check_round(rnd)
        seen: set[int] = set()
        for game in rnd.games:
            for pid in (game.white, game.black):
                if pid not in lines:
                    raise ValueError(f"round {rnd.round_no} names an unknown player ({pid}).")
                lines[pid].rounds.append(
                    (game.opponent_of(pid), game.points_of(pid), not game.forfeit)
                )
                seen.add(pid)
        if rnd.bye is not None:
            if rnd.bye not in lines:
                raise ValueError(f"round {rnd.round_no} names an unknown player ({rnd.bye}).")
            lines[rnd.bye].rounds.append((None, rnd.bye_points, False))
            seen.add(rnd.bye)
        for pid, line in lines.items():
            if pid not in seen:
                line.rounds.append((None, 0.0, False))  # a missed round
    return lines


def _tiebreak(name: str, line: _Line, lines: dict[int, _Line]) -> float:
    if name == "sonneborn_berger":
        return sum(
            points * lines[opp].tiebreak_score
            for opp, points, played in line.rounds
            if played and opp is not None
        )
    own = line.points
    parts = [
        lines[opp].tiebreak_score if played and opp is not None else own
        for opp, _, played in line.rounds
    ]
    if name == "buchholz":
        return sum(parts)
    if name == "buchholz_cut1":
        return sum(parts) - min(parts) if parts else 0.0
    raise ValueError(f"unknown tiebreak {name!r}.")


def _direct_encounter(members: list[int], lines: dict[int, _Line]) -> dict[int, float]:
    zero = dict.fromkeys(members, 0.0)
    if len(members) < 2:
        return zero
    group = set(members)
    met: set[frozenset[int]] = set()
    scores = dict(zero)
    for pid in members:
        for opp, points, played in lines[pid].rounds:
            if played and opp in group:
                scores[pid] += points
                met.add(frozenset((pid, opp)))
    if any(frozenset(pair) not in met for pair in combinations(members, 2)):
        return zero
    return scores
