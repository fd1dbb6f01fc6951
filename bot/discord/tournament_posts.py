"""Tournaments on Discord (issue 30): the embeds of ``/tournament`` and the posts the
service owes a tournament's channel (``bot.service.tournament_life``), delivered by the
outbox worker (``bot.discord.delivery`` hands these rows here):

- ``tournament_round``: the round's pairings, pinging its players, with its deadline;
- ``tournament_game``: a round's game gets its own thread under the tournament's channel,
  the game moves into it (``Tournaments.place_game``: once, whichever process is first;
  a thread made by a slower one is removed), and its first board is posted there,
  pinging both players. The round's threads are not held back by the channel's hourly
  thread budget (``threads_per_hour``), but each is counted in it, so players' own
  challenges in that channel wait for the hour to have room. When Discord refuses the
  thread for good (a permission), the game is played in the tournament's channel if no
  other game is there, its board saying why; else its row fails with the reason
  (``/games`` shows it) and a moderator moves the game with ``/relocate``. A 429, a 5xx
  or no answer is tried again;
- ``tournament_end``: the final standings as an image and a table, with the winner's name;
- ``tournament_cancelled``: why.

Each post is sent with its row's nonce (a retry returns the first try's message). A
thread is made before the game is placed in it: a process killed between the two leaves
an empty thread, and the next try makes another (the game goes into that one).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot import i18n
from bot.discord import adapter, threads
from bot.discord.adapter import Post
from bot.discord.flows import board_message
from bot.discord.refusals import Permanent, Transient, classify
from bot.discord.timestamps import runs_out, stamp
from bot.discord.translate import N_, _, ngettext
from bot.service import COMPUTER_ID, Owed
from bot.service.clock import from_ms
from bot.service.tournament_life import is_placeholder
from bot.service.tournaments import (
    RoundPairings,
    TournamentInfo,
    TournamentStandings,
    points_text,
)
from bot.service.words import reason_word

if TYPE_CHECKING:
    from bot.discord.delivery import Delivery

log = logging.getLogger(__name__)

# The tiebreaks' names as the pairing core titles them (``bot.tournament.standings``),
# catalogued here so that a reader sees them in their language.
TIEBREAK_NAMES = (
    N_("Buchholz"),
    N_("Buchholz Cut 1"),
    N_("Sonneborn-Berger"),
    N_("Direct encounter"),
)
STANDINGS_FILE = "standings.png"
COLOUR_TOURNAMENT = discord.Colour.dark_teal()
MAX_LINES = 30  # board lines in one embed


def _result_words(result: str | None, ending: str | None, done: bool) -> str:
    """A board's result, with how its game ended ("1-0 on time")."""
    if result is None:
        return _("not played") if done or ending else _("playing")
    if ending == "timeout":
        return _("{result} on time", result=result)
    if ending == "round deadline":
        return _("{result} at the round's deadline", result=result)
    if ending == "forfeit":
        return _("{result} (forfeit)", result=result)
    return result


def pairings_embed(pairs: RoundPairings) -> discord.Embed:
    t = pairs.tournament
    lines = []
    for b in pairs.boards[:MAX_LINES]:
        where = f" · <#{b.location_id}>" if b.location_id is not None else ""
        result = _result_words(b.result, b.ending, pairs.done)
        lines.append(
            f"**{b.board}.** {adapter.mention(b.white_id)} – {adapter.mention(b.black_id)}"
            f" · {result}{where}"
        )
    if len(pairs.boards) > MAX_LINES:
        more = len(pairs.boards) - MAX_LINES
        lines.append(ngettext("… and {n} more board", "… and {n} more boards", more))
    if pairs.bye_id is not None:
        lines.append(
            _(
                "Bye: {player} (+{points})",
                player=adapter.mention(pairs.bye_id),
                points=points_text(pairs.bye_points),
            )
        )
    days = ngettext("{n} day per move", "{n} days per move", t.days)
    if pairs.done:
        footer = _("Tournament {id} · {days} · the round is over", id=t.id, days=days)
    else:
        footer = _(
            "Tournament {id} · {days} · the round ends {when}",
            id=t.id,
            days=days,
            when=runs_out(pairs.deadline),
        )
    embed = discord.Embed(
        title=adapter.clip(
            _(
                "{name}: round {round} of {rounds}",
                name=t.name,
                round=pairs.round_no,
                rounds=t.rounds,
            ),
            256,
        ),
        description=adapter.clip("\n".join(lines) or _("No boards."), 4000),
        colour=COLOUR_TOURNAMENT,
    )
    embed.set_footer(text=footer[:2048])
    if not pairs.done:
        embed.add_field(name=_("Round deadline"), value=runs_out(pairs.deadline), inline=False)
    return adapter.fit(embed)


def info_embed(info: TournamentInfo) -> discord.Embed:
    t = info.tournament
    embed = discord.Embed(
        title=adapter.clip(_("Tournament {id}: {name}", id=t.id, name=t.name), 256),
        description="\n".join(i18n.render_all(None, info.lines)),
        colour=COLOUR_TOURNAMENT,
    )
    if t.status == "registration":
        embed.add_field(name=_("Starts"), value=runs_out(from_ms(t.starts_ms)), inline=False)
    joined = [adapter.mention(p.player_id) for p in info.joined]
    embed.add_field(
        name=_("Players ({n})", n=len(joined)),
        value=adapter.clip(", ".join(joined) or _("nobody yet"), 1024),
        inline=False,
    )
    if info.log:  # the log's latest entries, said in the reader's language
        embed.add_field(
            name=_("Latest changes"),
            value=adapter.clip("\n".join(i18n.render_all(None, info.log)), 1024),
            inline=False,
        )
    return adapter.fit(embed)


def standings_text(standing: TournamentStandings, limit: int = 20) -> str:
    heads = " · ".join(_(name) for name in standing.tiebreaks)
    lines = [_("Points, then {tiebreaks}:", tiebreaks=heads) if heads else _("Points:")]
    for s in standing.rows[:limit]:
        breaks = " · ".join(f"{x:g}" for x in s.tiebreaks)
        lines.append(
            f"**{s.rank}.** {adapter.mention(s.player.id)} {points_text(s.points)}"
            + (f" ({breaks})" if breaks else "")
        )
    if len(standing.rows) > limit:
        lines.append(_("… and {n} more", n=len(standing.rows) - limit))
    return "\n".join(lines)


def standings_post(standing: TournamentStandings, image: bytes | None) -> Post:
    t = standing.tournament
    if standing.final and standing.winner is not None:
        w = standing.winner
        title = _(
            "{name} is over: {winner} wins with {points} points",
            name=t.name,
            winner=w.player.label,
            points=points_text(w.points),
        )
    elif standing.final:
        title = _("{name} is over", name=t.name)
    else:
        title = _("{name}: standings after round {round}", name=t.name, round=standing.rounds_done)
    embed = discord.Embed(
        title=adapter.clip(title, 256),
        description=adapter.clip(standings_text(standing), 4000),
        colour=adapter.COLOUR_OVER if standing.final else COLOUR_TOURNAMENT,
    )
    files = []
    if image is not None:
        files.append(adapter.png_file(image, STANDINGS_FILE))
        embed.set_image(url=f"attachment://{STANDINGS_FILE}")
    embed.set_footer(text=_("Tournament {id}", id=t.id))
    ping = (standing.winner.player.id,) if standing.winner is not None else ()
    content = (
        _("Congratulations {player}!", player=adapter.mention(standing.winner.player.id))
        if standing.winner is not None
        else None
    )
    return Post(embed=adapter.fit(embed), files=files, content=content, ping=ping)


# ----- the outbox's rows ------------------------------------------------------------


async def send(delivery: Delivery, owed: Owed) -> discord.Message | None:
    """Deliver a tournament row (``Transient``/``Permanent`` as ``Delivery`` expects)."""
    row = owed.row
    if row.kind == "tournament_game":
        return await _game(delivery, owed)
    build = await _builder(delivery, owed)
    channel = delivery.bot.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
    message: discord.Message = await delivery._request(
        row.channel_id, lambda: channel.send(nonce=row.nonce, **build().kwargs())
    )
    return message


async def _builder(delivery: Delivery, owed: Owed) -> Callable[[], Post]:
    row = owed.row
    tours = delivery.service.tournaments
    tournament = await tours.tournament(tournament_id=int(row.payload["tournament"]))
    if row.kind == "tournament_round":
        pairs = await tours.round_pairings(tournament, int(row.payload["round"]))
        players = sorted(
            {p for b in pairs.boards for p in (b.white_id, b.black_id)}
            | ({pairs.bye_id} if pairs.bye_id is not None else set())
        )
        content = adapter.clip(
            _(
                "Round {round} is paired: {players}. Your games open in their threads below.",
                round=pairs.round_no,
                players=" ".join(adapter.mention(p) for p in players),
            ),
            2000,
        )
        embed = pairings_embed(pairs)
        return lambda: Post(embed=embed, content=content, ping=tuple(players))
    if row.kind == "tournament_end":
        standing = await tours.standings_of(tournament)
        image = await tours.standings_image(standing) if standing.rows else None
        return lambda: standings_post(standing, image)
    if row.kind == "tournament_cancelled":
        # the organiser's own words, as typed; the service's own reasons in the reader's language
        why = i18n.render(None, reason_word(str(row.payload.get("reason", ""))))
        embed = discord.Embed(
            title=adapter.clip(_("{name} is cancelled", name=tournament.name), 256),
            description=adapter.clip(why, 4000) or None,
            colour=adapter.COLOUR_CLOSED,
        )
        embed.set_footer(text=_("Tournament {id}", id=tournament.id))
        return lambda: Post(embed=embed)
    raise Permanent("unknown_kind", kind=row.kind)


async def _game(delivery: Delivery, owed: Owed) -> discord.Message | None:
    """Make the game's thread (unless it has one), move the game there, post its board."""
    row = owed.row
    service = delivery.service
    assert row.game_id is not None
    game = await service.repo.get_game(row.game_id)
    board = await service.tournaments.tournament_of_game(game_id=row.game_id)
    if game is None or board is None or owed.outcome is None:
        raise Permanent("not_a_tournament_game", game=row.game_id)
    where = game.location_id
    refused: str | None = None  # why Discord gave no thread (then the game is played here)
    if is_placeholder(where):
        parent: Any = delivery.bot.get_channel(row.channel_id)
        if parent is None:
            raise Permanent("thread_channel_gone")
        with i18n.using(i18n.DEFAULT):  # the cause is stored in English, said again at display
            home = threads.thread_home(parent)
        if isinstance(home, str):
            refused = home
        else:
            try:
                thread = await threads.open_thread(
                    home,
                    await _thread_name(delivery, board),
                    starter=_(
                        "Tournament {id}, round {round}, board {board}.",
                        id=board.tournament_id,
                        round=board.round,
                        board=board.board,
                    ),
                    reason=f"Chess Garden tournament {board.tournament_id}",
                )
            except threads.REQUEST_FAILURES as error:
                verdict = classify(error)
                if isinstance(verdict, Transient):  # a 429, a 5xx, no answer: try again
                    raise verdict from error
                with i18n.using(i18n.DEFAULT):  # stored in English, said again at display
                    refused = adapter.failure_cause(error)
            else:
                # A round's threads are exempt from the hourly budget (a moderator started
                # the tournament, and its games open together), but they count in it:
                # players' challenges in this channel wait until the hour has room again.
                delivery.bot.thread_budget.spend(home.parent.id)
                where = await service.tournaments.place_game(game_id=game.id, location_id=thread.id)
                if where != thread.id:  # another process placed it first
                    await threads.discard(thread)
        if refused is not None:
            # Discord refused the thread for good (a permission, the kind of channel):
            # the game is played in the tournament's channel, if no other game is there.
            where = await service.tournaments.place_game(
                game_id=game.id, location_id=row.channel_id
            )
            if is_placeholder(where):
                raise Permanent("no_thread_no_channel", refused=refused)
            log.warning(
                "tournament %s game %s is played in channel %s: no thread (%s)",
                board.tournament_id,
                game.id,
                row.channel_id,
                refused,
            )
    outcome = owed.outcome
    head = _(
        "Tournament {id}, round {round}, board {board}: {white} (White) against {black} "
        "(Black). The game has begun.",
        id=board.tournament_id,
        round=board.round,
        board=board.board,
        white=adapter.mention(board.white_id),
        black=adapter.mention(board.black_id),
    )
    if refused is not None and where == row.channel_id:
        head += " " + _(
            "I could not make its thread ({reason}), so it is played here.", reason=refused
        )

    def build() -> Post:
        post = board_message(outcome, actor_id=COMPUTER_ID, show_commitment=True)
        if not owed.current:
            from bot.discord.delivery import moved_on_post

            post = moved_on_post(outcome)
        content = head + ("\n" + post.content if post.content else "")
        return replace(
            post, content=adapter.clip(content, 2000), ping=(board.white_id, board.black_id)
        )

    channel = delivery.bot.get_partial_messageable(where, guild_id=row.guild_id)
    message: discord.Message = await delivery._request(
        where, lambda: channel.send(nonce=row.nonce, **build().kwargs())
    )
    return message


async def _thread_name(delivery: Delivery, board: Any) -> str:
    return threads.thread_name(
        f"T{board.tournament_id} R{board.round} B{board.board}",
        await _label(delivery, board.tournament_id, board.white_id),
        await _label(delivery, board.tournament_id, board.black_id),
    )


async def _label(delivery: Delivery, tournament_id: int, user_id: int) -> str:
    """The name a player joined with (else Discord's, else their number)."""
    player = await delivery.service.repo.tournament_player(tournament_id, user_id)
    if player is not None and player.name:
        return player.name
    user = delivery.bot.get_user(user_id)
    return user.display_name if user is not None else _("player {id}", id=user_id)


__all__ = [
    "info_embed",
    "pairings_embed",
    "send",
    "standings_post",
    "stamp",
]
