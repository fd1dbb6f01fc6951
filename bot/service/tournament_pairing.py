"""From stored tournament rows to the pure core (``bot.tournament``) and back: who plays
in a round, the played rounds as the core reads them, the pairing a round must have,
the result a finished game gives its board, and ``check``: every stored round re-paired
from the stored results before it, with the differences in words.

Everything here is a function of the stored rows: the pairing of round ``n`` follows
from the players (their ratings and seed numbers fixed at the start, and the first
round each is no longer paired in) and the stored results of rounds ``1 .. n-1``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.service.clock import TIMEOUT_PATTERN
from bot.tournament import Format, Game, Pairings, Player, RoundResult, pair_swiss
from bot.tournament.roundrobin import berger_rounds, rounds_for
from storage import ActionRow, GameRow
from storage.tournaments import BoardRow, RoundRow, TournamentPlayerRow, TournamentRow

UNRATED = 1500.0  # a player's pairing rating without a rating in the variant


def took_part(player: TournamentPlayerRow) -> bool:
    """Whether a player was in the tournament when it started (a seed number then)."""
    return player.seed_no is not None


def core_player(player: TournamentPlayerRow) -> Player:
    rating = UNRATED if player.rating is None else player.rating
    return Player(player.player_id, rating, player.name or "")


def entrants(players: Sequence[TournamentPlayerRow], round_no: int) -> list[Player]:
    """Who is paired in round ``round_no``, by seed number."""
    playing = [p for p in players if took_part(p) and p.plays_in(round_no)]
    return [core_player(p) for p in sorted(playing, key=lambda p: p.seed_no or 0)]


def field(players: Sequence[TournamentPlayerRow]) -> list[Player]:
    """Everyone who took part (withdrawn players included), by seed number."""
    started = sorted((p for p in players if took_part(p)), key=lambda p: p.seed_no or 0)
    return [core_player(p) for p in started]


def played_rounds(
    rounds: Sequence[RoundRow], boards: Sequence[BoardRow], before: int | None = None
) -> list[RoundResult]:
    """The rounds whose results are recorded (``done``), before round ``before`` if
    given, as the core reads them. A board without a result (no game was played, or it
    ended with none) is left out: both its players missed the round."""
    out = []
    for rnd in rounds:
        if rnd.status != "done" or (before is not None and rnd.number >= before):
            continue
        games = tuple(
            Game(b.white_id, b.black_id, b.result, b.forfeit)
            for b in boards
            if b.round == rnd.number and b.result is not None
        )
        out.append(RoundResult(rnd.number, games, rnd.bye_id, rnd.bye_points))
    return out


def pair_round(
    tournament: TournamentRow,
    players: Sequence[TournamentPlayerRow],
    rounds: Sequence[RoundRow],
    boards: Sequence[BoardRow],
    round_no: int,
) -> Pairings:
    """The pairing round ``round_no`` must have, from the stored results before it."""
    if Format(tournament.format) is Format.ROUND_ROBIN:
        table = berger_rounds(field(players), bool(tournament.settings.get("double")))
        return table[round_no - 1]
    history = played_rounds(rounds, boards, before=round_no)
    return pair_swiss(entrants(players, round_no), history, round_no)


def round_robin_rounds(count: int, double: bool) -> int:
    """How many rounds a round robin of ``count`` players has."""
    return rounds_for(count, double)


@dataclass(frozen=True)
class BoardEnd:
    """What a finished game gives its board: the result (``None``: none, both miss the
    round), whether it was a forfeit, how it ended, and who ran out of time (if anyone)."""

    result: str | None
    forfeit: bool
    ending: str
    timed_out: int | None = None


def board_end(game: GameRow, last: ActionRow | None) -> BoardEnd | None:
    """The end of a tournament game, from its row and its last log entry; ``None`` while
    it is still played. A game lost on time counts a timeout for the side that ran out;
    one aborted because its side to act ran out before anyone moved is a forfeit lost by
    that side; one aborted by a moderator has no result."""
    if game.is_live:
        return None
    timed_out: int | None = None
    loser: str | None = None
    if last is not None and last.kind == "timeout":
        said = TIMEOUT_PATTERN.match(last.text)
        if said:
            loser = said[1]
            timed_out = game.white_id if loser == "white" else game.black_id
    if game.status == "finished" and game.result is not None:
        return BoardEnd(game.result, False, "timeout" if timed_out else "played", timed_out)
    if game.status == "aborted" and loser is not None:
        result = "0-1" if loser == "white" else "1-0"
        return BoardEnd(result, True, "timeout", timed_out)
    return BoardEnd(None, False, "aborted")


def check_rounds(
    tournament: TournamentRow,
    players: Sequence[TournamentPlayerRow],
    rounds: Sequence[RoundRow],
    boards: Sequence[BoardRow],
) -> list[str]:
    """Every stored round re-paired from the stored results before it: the differences,
    in words (none: every round follows from the results)."""
    problems: list[str] = []
    numbers = [r.number for r in rounds]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"the rounds stored are {numbers}, not 1 to {len(numbers)}")
    by_round: dict[int, list[BoardRow]] = {}
    for b in boards:
        by_round.setdefault(b.round, []).append(b)
    for rnd in rounds:
        try:
            expected = pair_round(tournament, players, rounds, boards, rnd.number)
        except ValueError as error:
            problems.append(f"round {rnd.number}: cannot be paired again: {error}")
            continue
        stored = sorted(by_round.get(rnd.number, []), key=lambda b: b.board)
        want = [(b.number, b.white, b.black) for b in expected.boards]
        have = [(b.board, b.white_id, b.black_id) for b in stored]
        for missing in sorted(set(want) - set(have)):
            problems.append(
                f"round {rnd.number}: board {missing[0]} should be {missing[1]} (White) "
                f"against {missing[2]} (Black)"
            )
        for extra in sorted(set(have) - set(want)):
            problems.append(
                f"round {rnd.number}: board {extra[0]} is stored as {extra[1]} (White) "
                f"against {extra[2]} (Black), which the results before it do not give"
            )
        bye = expected.bye
        if Format(tournament.format) is Format.ROUND_ROBIN and bye is not None:
            sitting = {p.player_id for p in players if not p.plays_in(rnd.number)}
            bye = None if bye in sitting else bye
        if rnd.bye_id != bye:
            problems.append(f"round {rnd.number}: the bye is {rnd.bye_id}, it should be {bye}")
    return problems
