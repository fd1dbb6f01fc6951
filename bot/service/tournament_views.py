"""Looking at tournaments (issue 30): a part of the ``Tournaments`` component
(``bot.service.tournaments``): which tournament a command means, its information, a
round's pairings, the standings (with each player's rounds, and as an image:
``renderers.tournament``), its log, and ``check``: every stored round re-paired from
the stored results, and every result read again from its game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bot import i18n
from bot.i18n import N_, said
from bot.service.clock import days_text, from_ms, iso
from bot.service.core import ServiceCore, check_id
from bot.service.errors import InvalidInput, InvalidState, NotFound
from bot.service.live import variant_title
from bot.service.tournament_life import is_placeholder
from bot.service.tournament_log import latest_lines
from bot.service.tournament_pairing import board_end, check_rounds, field, played_rounds
from bot.tournament import Format, Player
from bot.tournament.standings import TIEBREAK_TITLES, TIEBREAKS, Standing, standings
from variants.sentence import word

if TYPE_CHECKING:
    from renderers.tournament import StandingsTable

from storage.tournaments import (
    LIVE_TOURNAMENT,
    BoardRow,
    RoundRow,
    TournamentLogRow,
    TournamentPlayerRow,
    TournamentRow,
)

INFO_LOG_LINES = 5  # the latest log entries /tournament info shows


@dataclass(frozen=True)
class TournamentInfo:
    tournament: TournamentRow
    players: tuple[TournamentPlayerRow, ...]
    rounds: tuple[RoundRow, ...]
    lines: tuple[str, ...]
    # the latest entries of its log, the oldest first (``tournament_log.log_line``: Said)
    log: tuple[str, ...] = ()

    @property
    def joined(self) -> tuple[TournamentPlayerRow, ...]:
        return tuple(p for p in self.players if p.status == "joined")


@dataclass(frozen=True)
class BoardLine:
    """A board of a round, for reading: names, the game (and where it is), the result."""

    board: int
    white_id: int
    white: str
    black_id: int
    black: str
    game_id: int | None
    location_id: int | None  # the game's thread (None until it is made)
    result: str | None
    ending: str | None


@dataclass(frozen=True)
class RoundPairings:
    tournament: TournamentRow
    round_no: int
    boards: tuple[BoardLine, ...]
    bye_id: int | None
    bye: str | None
    bye_points: float
    deadline: datetime
    done: bool


@dataclass(frozen=True)
class TournamentStandings:
    """The standings after the rounds recorded (``final`` once the tournament is over),
    with each player's rounds: ``cells[player id]`` is one ``(result, colour, opponent)``
    per round (``result`` ``1``, ``½``, ``0``, ``+``/``-`` for forfeits, ``B`` for the
    bye, ``None`` not played; ``colour`` ``w``/``b``/``None``)."""

    tournament: TournamentRow
    rows: tuple[Standing, ...]
    tiebreaks: tuple[str, ...]
    rounds_done: int
    final: bool
    cells: dict[int, tuple[tuple[str | None, str | None, int | None], ...]]
    seeds: dict[int, int]

    @property
    def winner(self) -> Standing | None:
        return self.rows[0] if self.final and self.rows else None


def points_text(value: float) -> str:
    whole, half = divmod(round(value * 2), 2)
    return f"{whole}½" if half and whole else ("½" if half else str(whole))


class TournamentViews:
    """The looking half of ``Tournaments``; see the module."""

    core: ServiceCore

    # ----- finding one -------------------------------------------------------------

    async def find(
        self, guild_id: int | None, tournament_id: int | None = None, *, live: bool = True
    ) -> TournamentRow:
        """The tournament named by id (in this server), or the server's only live one
        (``live=False``: else its latest)."""
        if guild_id is None:
            raise InvalidInput(said("tournaments are run in a server, not in direct messages"))
        guild_id = check_id(guild_id, "the server id")
        repo = self.core.repo
        if tournament_id is not None:
            wanted = check_id(tournament_id, "the tournament id")
            row = await repo.tournament(wanted)
            if row is None or row.guild_id != guild_id:
                raise NotFound(
                    said("there is no tournament {tournament} on this server", tournament=wanted)
                )
            return row
        rows = await repo.tournaments_of_guild(guild_id, LIVE_TOURNAMENT, 25)
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            ids = ", ".join(str(r.id) for r in sorted(rows, key=lambda r: r.id))
            raise InvalidInput(
                said(
                    "this server has {n} tournaments under way ({ids}); name one by its id",
                    n=len(rows),
                    ids=ids,
                )
            )
        if not live:
            latest = await repo.tournaments_of_guild(guild_id, ("finished", "cancelled"), 1)
            if latest:
                return latest[0]
        raise NotFound(said("there is no tournament on this server now"))

    # ----- looking ---------------------------------------------------------------------

    async def info(
        self, *, guild_id: int | None, tournament_id: int | None = None
    ) -> TournamentInfo:
        row = await self.find(guild_id, tournament_id, live=False)
        players = await self.core.repo.tournament_players(row.id)
        rounds = await self.core.repo.tournament_rounds(row.id)
        joined = [p for p in players if p.status == "joined"]
        fmt = said("Swiss") if row.format == "swiss" else said("Round robin")
        if row.format == "round-robin" and row.settings.get("double"):
            fmt = said("Double round robin")
        if row.format == "swiss" or row.status != "registration":
            rounds_text = said("{n} rounds", n=row.rounds)
        else:
            rounds_text = said("rounds set by the players at the start")
        lines: list[str] = [
            said(
                "{format} of {variant}, {rounds}, {time}, {rated}.",
                format=fmt,
                variant=variant_title(row.variant),
                rounds=rounds_text,
                time=days_text(row.days) if row.days else said("0 days per move"),
                rated=said("rated") if row.rated else said("unrated"),
            ),
        ]
        start = iso(from_ms(row.starts_ms))
        if row.status == "registration":
            lines.append(
                said(
                    "Registration open until {start}: {joined} of {most} players.",
                    start=start,
                    joined=len(joined),
                    most=row.settings.get("max_players", "?"),
                )
            )
        elif row.status == "running":
            lines.append(
                said(
                    "Round {round} of {rounds} is being played.",
                    round=row.current_round,
                    rounds=row.rounds,
                )
            )
        elif row.status == "finished":
            winner = next((p for p in players if p.player_id == row.winner_id), None)
            if winner is not None:
                lines.append(said("Finished: won by {player}.", player=self._name(winner)))
            else:
                lines.append(said("Finished."))
        else:
            lines.append(said("Cancelled."))
        entries = await self.core.repo.tournament_log(row.id)
        log = latest_lines(entries, self.core._label, INFO_LOG_LINES)
        return TournamentInfo(row, tuple(players), tuple(rounds), tuple(lines), log)

    async def log(
        self, *, guild_id: int | None, tournament_id: int | None = None
    ) -> list[TournamentLogRow]:
        row = await self.find(guild_id, tournament_id, live=False)
        return await self.core.repo.tournament_log(row.id)

    async def pairings(
        self, *, guild_id: int | None, tournament_id: int | None = None, round_no: int | None = None
    ) -> RoundPairings:
        row = await self.find(guild_id, tournament_id, live=False)
        return await self.round_pairings(row, round_no)

    async def round_pairings(self, row: TournamentRow, round_no: int | None) -> RoundPairings:
        repo = self.core.repo
        rounds = await repo.tournament_rounds(row.id)
        if not rounds:
            raise InvalidState(
                said("tournament {tournament} has no round paired yet", tournament=row.id)
            )
        number = rounds[-1].number if round_no is None else check_id(round_no, "the round")
        rnd = next((r for r in rounds if r.number == number), None)
        if rnd is None:
            raise NotFound(
                said(
                    "tournament {tournament} has no round {round} (rounds 1 to {last})",
                    tournament=row.id,
                    round=number,
                    last=rounds[-1].number,
                )
            )
        players = await repo.tournament_players(row.id)
        names = {p.player_id: self._name(p) for p in players}
        lines = []
        for b in await repo.tournament_boards(row.id):
            if b.round != number:
                continue
            where = None
            if b.game_id is not None:
                game = await repo.get_game(b.game_id)
                if game is not None and not is_placeholder(game.location_id):
                    where = game.location_id
            lines.append(
                BoardLine(
                    b.board,
                    b.white_id,
                    names.get(b.white_id, self.core._label(b.white_id)),
                    b.black_id,
                    names.get(b.black_id, self.core._label(b.black_id)),
                    b.game_id,
                    where,
                    b.result,
                    b.ending,
                )
            )
        bye = None if rnd.bye_id is None else names.get(rnd.bye_id, self.core._label(rnd.bye_id))
        return RoundPairings(
            row,
            number,
            tuple(lines),
            rnd.bye_id,
            bye,
            rnd.bye_points,
            from_ms(rnd.deadline_ms),
            rnd.status == "done",
        )

    async def standings(
        self, *, guild_id: int | None = None, tournament_id: int | None = None
    ) -> TournamentStandings:
        row = (
            await self.find(guild_id, tournament_id, live=False)
            if guild_id is not None
            else await self._reread(check_id(tournament_id, "the tournament id"))
        )
        return await self.standings_of(row)

    async def standings_of(self, row: TournamentRow) -> TournamentStandings:
        repo = self.core.repo
        players = await repo.tournament_players(row.id)
        rounds = await repo.tournament_rounds(row.id)
        boards = await repo.tournament_boards(row.id)
        history = played_rounds(rounds, boards)
        people = field(players)
        table = tuple(standings(row.format, people, history)) if people else ()
        named = {p.player_id: self._name(p) for p in players}
        table = tuple(
            Standing(
                s.rank,
                Player(s.player.id, s.player.rating, named.get(s.player.id, s.player.name)),
                s.points,
                s.tiebreaks,
                s.wins,
                s.draws,
                s.losses,
                s.unplayed,
            )
            for s in table
        )
        cells = _cells(people, rounds, boards)
        return TournamentStandings(
            row,
            table,
            tuple(TIEBREAK_TITLES[n] for n in TIEBREAKS[Format(row.format)]),
            len(history),
            row.status == "finished",
            cells,
            {p.player_id: p.seed_no or 0 for p in players if p.seed_no is not None},
        )

    async def check(self, *, tournament_id: int) -> list[str]:
        """Every stored round re-paired from the stored results before it, and every
        recorded result read again from its game: the differences, in words."""
        row = await self._reread(check_id(tournament_id, "the tournament id"))
        repo = self.core.repo
        players = await repo.tournament_players(row.id)
        rounds = await repo.tournament_rounds(row.id)
        boards = await repo.tournament_boards(row.id)
        problems = check_rounds(row, players, rounds, boards)
        done = {r.number for r in rounds if r.status == "done"}
        for b in boards:
            if b.game_id is None or b.round not in done:
                continue
            game = await repo.get_game(b.game_id)
            if game is None:
                problems.append(f"round {b.round}, board {b.board}: game {b.game_id} is missing")
                continue
            last = await repo.actions(game.id, after=max(0, game.log_count - 1))
            end = board_end(game, last[-1] if last else None)
            if end is None:
                problems.append(
                    f"round {b.round}, board {b.board}: game {game.id} is still being played"
                )
                continue
            if (b.result, b.forfeit) != (end.result, end.forfeit):
                problems.append(
                    f"round {b.round}, board {b.board}: the result stored is {b.result}, "
                    f"game {game.id} gives {end.result}"
                )
        return problems

    async def tournament(self, *, tournament_id: int) -> TournamentRow:
        return await self._reread(check_id(tournament_id, "the tournament id"))

    async def _reread(self, tournament_id: int) -> TournamentRow:
        row = await self.core.repo.tournament(tournament_id)
        if row is None:
            raise NotFound(said("there is no tournament {tournament}", tournament=tournament_id))
        return row

    def _name(self, player: TournamentPlayerRow | None) -> str:
        if player is None:
            return "nobody"
        return player.name or self.core._label(player.player_id)

    async def standings_image(
        self, standing: TournamentStandings, *, locale: str | None = None
    ) -> bytes:
        """The standings drawn (``renderers.tournament``), off the event loop, their words
        in ``locale`` (default: ``bot.i18n.pictures``, the one set for this piece of work)."""
        from renderers.tournament import render_standings

        speech = i18n.Speech(locale if locale is not None else i18n.pictures())
        return await self.core._cpu(render_standings, standings_table(standing), speech)


def _cells(
    people: Sequence[Player], rounds: Sequence[RoundRow], boards: Sequence[BoardRow]
) -> dict[int, tuple[tuple[str | None, str | None, int | None], ...]]:
    """Each player's rounds as ``(result, colour, opponent)`` (see ``TournamentStandings``)."""
    out: dict[int, list[tuple[str | None, str | None, int | None]]] = {p.id: [] for p in people}
    for rnd in rounds:
        seen: set[int] = set()
        for b in boards:
            if b.round != rnd.number:
                continue
            for pid, colour, opp, won in (
                (b.white_id, "w", b.black_id, "1-0"),
                (b.black_id, "b", b.white_id, "0-1"),
            ):
                if pid not in out:
                    continue
                seen.add(pid)
                if b.result is None:
                    mark = None if rnd.status == "done" else "…"
                elif b.result == "1/2-1/2":
                    mark = "½"
                elif b.result == won:
                    mark = "+" if b.forfeit else "1"
                else:
                    mark = "-" if b.forfeit else "0"
                out[pid].append((mark, None if b.forfeit else colour, opp))
        if rnd.bye_id is not None and rnd.bye_id in out:
            seen.add(rnd.bye_id)
            out[rnd.bye_id].append(("B", None, None))
        for pid, line in out.items():
            if pid not in seen:
                line.append((None, None, None))
    return {pid: tuple(line) for pid, line in out.items()}


# The tiebreaks' short titles, as the standings picture heads its columns.
SHORT_TIEBREAKS = {
    "Buchholz": N_("Buch"),
    "Buchholz Cut 1": N_("Cut1"),
    "Sonneborn-Berger": N_("S-B"),
    "Direct encounter": N_("DE"),
}


def standings_table(standing: TournamentStandings) -> StandingsTable:
    """The values ``renderers.tournament`` draws: a Swiss's rounds (result, colour,
    opponent's rank), or a round robin's crosstable."""
    from renderers.tournament import Cell, StandingsTable, TableRow

    row = standing.tournament
    place = {s.player.id: n for n, s in enumerate(standing.rows, start=1)}
    swiss = row.format == "swiss"
    rows = []
    for n, s in enumerate(standing.rows, start=1):
        line = standing.cells.get(s.player.id, ())
        if swiss:
            cells = tuple(
                Cell(mark or "", colour, str(place[opp]) if opp in place else "")
                for mark, colour, opp in line
            )
        else:
            against: dict[int, list[str]] = {}
            for mark, _colour, opp in line:
                if opp is not None and mark:
                    against.setdefault(opp, []).append(mark)
            cells = tuple(
                Cell(" ".join(against.get(other.player.id, []))) for other in standing.rows
            )
        rows.append(
            TableRow(
                rank=str(s.rank),
                name=s.player.label,
                points=points_text(s.points),
                tiebreaks=tuple(f"{x:g}" for x in s.tiebreaks),
                cells=cells,
                highlight=standing.final and n == 1,
            )
        )
    if swiss:
        columns = tuple(
            str(r) for r in range(1, max((len(c) for c in standing.cells.values()), default=0) + 1)
        )
    else:
        columns = tuple(str(n) for n in range(1, len(standing.rows) + 1))
    # the subtitle and the tiebreaks are Said: the picture draws them in its language
    if standing.final:
        subtitle = said("Swiss, final standings") if swiss else said("Round robin, final standings")
    elif swiss:
        subtitle = said("Swiss, after round {round}", round=standing.rounds_done)
    else:
        subtitle = said("Round robin, after round {round}", round=standing.rounds_done)
    return StandingsTable(
        title=row.name,
        subtitle=subtitle,
        kind="swiss" if swiss else "crosstable",
        columns=columns,
        tiebreaks=tuple(
            word(SHORT_TIEBREAKS[t]) if t in SHORT_TIEBREAKS else t for t in standing.tiebreaks
        ),
        rows=tuple(rows),
    )
