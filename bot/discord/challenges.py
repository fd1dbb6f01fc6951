"""Making a challenge: in this channel, or in a new thread when the channel is busy.

Shared by ``/play`` and the Rematch button. ``/play computer:LEVEL`` starts a game
against the computer the same way (here, or in a new thread), with no challenge: its
first post is the board (``GameService.play_computer``); the computer's moves are posted
by ``bot.discord.delivery``. Everything that can be refused without a
request is refused first, privately: a thread where none can be made, the bot's missing
permissions, the per-channel thread limit. Then, in a new thread: make the thread, record
the challenge (or the game against the computer) there, post it. The three are one unit:
if the post fails for any reason (Discord refuses it, a 5xx after discord.py's retries, a
timeout, a reset connection), the game is withdrawn whatever its state
(``GameService.withdraw``: a challenge cancelled, a computer game aborted and logged as
withdrawn), the thread removed, and the player told in one private sentence; nothing is
left live where nobody can see it. A game against the computer is made with
``hold=True``: the computer makes no move until its first board is posted
(``release_computer``), so it never moves into a thread that is about to go.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.discord import adapter, answers, flows, threads, views
from bot.discord.adapter import Post
from bot.discord.answers import Interaction, Sent
from bot.discord.translate import _
from bot.service import Outcome, ServiceError

log = logging.getLogger(__name__)


def challenge_post(outcome: Outcome) -> Post:
    content, ping = adapter.turn_prompt(outcome.game)
    return Post(
        embed=adapter.challenge_embed(outcome),
        content=content,
        ping=ping,
        view=views.challenge_view(outcome.game.id),
        game_id=outcome.game.id,
        is_board=True,
        failure=_(
            "Game {game} is recorded, but I could not post the challenge.", game=outcome.game.id
        ),
    )


async def challenge(
    interaction: Interaction,
    *,
    variant: str,
    opponent_id: int | None,
    colour: str,
    options: dict[str, Any],
    want_thread: bool,
    name: str,
    days: int | None = None,
    computer: int | None = None,
    rated: bool = True,
) -> bool:
    """Challenge ``opponent_id`` (None: anyone). ``name`` names a new thread. True if posted.
    ``days``: the time control, days per move (``None``: no time limit). ``computer``: a
    level (1-3): a game against the computer instead, started at once (untimed, unrated).
    ``rated``: the game counts for ratings (issue 15; /play's default)."""
    if await answers.refuse_outside_server(interaction):
        return False
    service = answers.service_of(interaction)
    here = answers.location_of(interaction)
    settings = await service.server_settings.of_guild(interaction.guild_id)  # (issue 27)
    parent = getattr(interaction.channel, "parent_id", None)  # a thread's channel
    if not settings.allows_games_in(here, parent):
        where = ", ".join(f"<#{c}>" for c in settings.channels)
        await answers.refuse(
            interaction,
            _(
                "Games may start only in {channels} on this server; use /play there.",
                channels=where,
            ),
        )
        return False
    if want_thread and not settings.threads:
        await answers.refuse(
            interaction,
            _("This server does not use game threads; leave thread off to play here."),
        )
        return False
    kwargs: dict[str, Any] = dict(
        challenger_id=interaction.user.id,
        variant=variant,
        opponent_id=opponent_id,
        colour=colour,
        options=options,
        guild_id=interaction.guild_id,
        request_id=answers.request_id(interaction),
        days=days,
        rated=rated,
    )
    if computer is not None:
        kwargs = dict(
            user_id=interaction.user.id,
            variant=variant,
            level=computer,
            colour=colour,
            options=options,
            guild_id=interaction.guild_id,
            request_id=answers.request_id(interaction),
        )
    busy = await service.list_games(location_id=here, statuses=answers.LIVE, limit=1)
    if not busy and not want_thread:

        async def here_work() -> Post:
            try:
                outcome = await _start(service, here, kwargs)
            except ServiceError as error:
                return await answers.refusal(interaction, error)
            return _first_post(interaction, outcome)

        post, sent = await answers.answer(interaction, here_work())
        if post is not None and post.game_id is not None and sent is not None:
            await flows.remember_board(interaction, post.game_id, sent)
        return sent is not None

    why = " " + _("(this channel already has game {game})", game=busy[0].id) if busy else ""
    if not settings.threads:
        await answers.refuse(
            interaction,
            _(
                "This channel already has game {game}, and this server does not use game "
                "threads: finish that game first, or play in another channel.",
                game=busy[0].id,
            )
            if busy
            else _("This server does not use game threads; leave thread off to play here."),
        )
        return False
    home = threads.thread_home(interaction.channel)
    if isinstance(home, str):
        await answers.refuse(
            interaction,
            _(
                "This channel already has game {game}, and {reason}. Finish that game first, "
                "or use /play in a text channel.",
                game=busy[0].id,
                reason=home,
            )
            if busy
            else _(
                "I can't make a thread here: {reason}. Play here without a thread, or use "
                "/play in a text channel.",
                reason=home,
            ),
        )
        return False
    perms = threads.bot_permissions(interaction, home.parent)
    missing = adapter.missing_permissions(perms, home.needs)
    if missing:
        await answers.refuse(
            interaction,
            _(
                "I can't make a game thread in {channel}{why}: I need {permissions} there.",
                channel=home.parent.mention,
                why=why,
                permissions=adapter.permission_words(missing),
            ),
        )
        return False
    waiting = (
        await _open_challenges(interaction, settings.max_challenges) if computer is None else ""
    )
    if waiting:
        await answers.refuse(interaction, waiting)
        return False
    budget: threads.ThreadBudget = interaction.client.thread_budget
    wait = budget.wait_for(home.parent.id, settings.threads_per_hour)
    if wait:
        minutes = max(1, round(wait / 60))
        await answers.refuse(
            interaction,
            _(
                "{channel} has had {count} new game threads in the last hour, the most I "
                "make{why}. The next can start in about {minutes} minutes; meanwhile, finish "
                "a game or play in an existing thread.",
                channel=home.parent.mention,
                count=settings.threads_per_hour,
                why=why,
                minutes=minutes,
            ),
        )
        return False

    async def thread_work() -> Post:
        try:
            thread = await threads.open_thread(
                home,
                name,
                starter=_("{name}. The challenge follows.", name=name),
                reason=f"Chess Garden game for {interaction.user}",
            )
        except adapter.REQUEST_FAILURES as error:
            return answers.error_post(
                _(
                    "I can't make a thread in {channel}: {cause}.",
                    channel=home.parent.mention,
                    cause=adapter.failure_cause(error),
                )
            )
        budget.spend(home.parent.id)
        return await _challenge_in(interaction, thread, kwargs, why)

    post, _sent = await answers.answer(interaction, thread_work())
    return post is not None and not post.ephemeral


async def _challenge_in(
    interaction: Interaction, thread: discord.Thread, kwargs: dict[str, Any], why: str
) -> Post:
    """Record the game in the new thread and post it there: one unit (see the module)."""
    service = answers.service_of(interaction)
    computer = "level" in kwargs
    try:
        outcome = await _start(service, thread.id, {**kwargs, "hold": True} if computer else kwargs)
    except ServiceError as error:
        done = await threads.discard(thread)
        return answers.error_post(f"{adapter.error_text(error)} ({done}.)")
    except Exception:
        await threads.discard(thread)
        raise
    game_id = outcome.game.id
    interaction.extras["game_id"] = game_id
    post = _first_post(interaction, outcome)
    try:
        message = await thread.send(**post.kwargs())
    except adapter.REQUEST_FAILURES as error:
        withdrawn = await _withdraw(interaction, game_id, computer=computer)
        done = await threads.discard(thread)
        me = thread.guild.me
        missing = (
            adapter.missing_permissions(
                thread.permissions_for(me), ("send_messages_in_threads", "embed_links")
            )
            if me is not None
            else []
        )
        cause = adapter.failure_cause(error, missing)
        log.warning("game %s: its first post in thread %s failed: %r", game_id, thread.id, error)
        return answers.error_post(
            _(
                "I can't post in the new thread: {cause}, so {withdrawn}, and {done}.",
                cause=cause,
                withdrawn=withdrawn,
                done=done,
            )
        )
    except Exception:
        await _withdraw(interaction, game_id, computer=computer)
        await threads.discard(thread)
        raise
    if computer:  # the game is visible now: the computer may move
        await service.release_computer(game_id=game_id)
    await flows.remember_board(interaction, game_id, Sent(thread.id, message.id))
    if outcome.game.computer is not None:
        said = _(
            "Game {game}: the game is in {thread}{why}.",
            game=game_id,
            thread=thread.mention,
            why=why,
        )
    else:
        said = _(
            "Game {game}: the challenge is in {thread}{why}.",
            game=game_id,
            thread=thread.mention,
            why=why,
        )
    note = discord.Embed(description=said, colour=adapter.COLOUR_CHALLENGE)
    return Post(
        embed=note, note=_("Game {game} is in {thread}.", game=game_id, thread=thread.mention)
    )


async def _start(service: Any, location_id: int, kwargs: dict[str, Any]) -> Outcome:
    """The challenge, or (``level`` given) the game against the computer."""
    if "level" in kwargs:
        outcome: Outcome = await service.play_computer(location_id=location_id, **kwargs)
    else:
        outcome = await service.challenge(location_id=location_id, **kwargs)
    return outcome


def _first_post(interaction: Interaction, outcome: Outcome) -> Post:
    """A challenge's post, or the first board of a game against the computer."""
    if outcome.game.computer is None:
        return challenge_post(outcome)
    return flows.board_post(interaction, outcome, show_commitment=True)


async def _open_challenges(interaction: Interaction, limit: int) -> str:
    """Before a thread is made for it: would the challenge be over the user's limit (the
    server's, ``/settings``)? The service decides again when it records the challenge;
    this only spares an empty thread."""
    service = answers.service_of(interaction)
    games = await service.list_games(
        player_id=interaction.user.id, statuses=("challenge",), limit=100
    )
    mine = sorted(g.id for g in games if g.challenger_id == interaction.user.id)
    if len(mine) < limit:
        return ""
    ids = ", ".join(str(i) for i in mine)
    return _(
        "You already have {count} open challenges (games {games}); at most {limit} may "
        "wait at once. Cancel one with its Decline button, or wait for an answer.",
        count=len(mine),
        games=ids,
        limit=limit,
    )


async def _withdraw(interaction: Interaction, game_id: int, *, computer: bool) -> str:
    """Take back the game whose first post failed; what happened, in words."""
    try:
        await answers.service_of(interaction).withdraw(
            user_id=interaction.user.id,
            game_id=game_id,
            reason="its first post in a new thread failed",  # (the game's log: English)
        )
        return _("I withdrew the game") if computer else _("I withdrew the challenge")
    except ServiceError as error:
        log.error("could not withdraw game %s: %s", game_id, error)
        if computer:
            return _(
                "I could not withdraw the game (game {game}; a moderator can /abort it)",
                game=game_id,
            )
        return _(
            "I could not withdraw the challenge (game {game}; a moderator can /abort it)",
            game=game_id,
        )


async def rematch(interaction: Interaction, game_id: int) -> None:
    """From a finished game's board: challenge the same opponent, colours swapped."""
    if await answers.refuse_outside_server(interaction):
        return
    service = answers.service_of(interaction)
    try:
        view = await service.view(game_id=game_id, **answers.seen(interaction, from_button=True))
    except ServiceError as error:
        await answers.deliver(interaction, await answers.refusal(interaction, error))
        return
    mine = view.colour_of(interaction.user.id)
    if mine is None:
        await answers.refuse(
            interaction, _("Only the players of game {game} can ask for a rematch.", game=view.id)
        )
        return
    if view.status != "finished":
        await answers.refuse(interaction, _("Game {game} is not finished.", game=view.id))
        return
    opponent = view.black_id if mine == "white" else view.white_id
    colour = "black" if mine == "white" else "white"
    made = await challenge(
        interaction,
        variant=view.variant,
        opponent_id=opponent,
        colour=colour,
        options=dict(view.options),
        days=view.time_days,  # the same time control
        rated=view.rated,  # and rated if the first game was
        want_thread=False,
        name=_("{variant}: rematch of game {game}", variant=view.variant_title, game=view.id),
    )
    if made and interaction.message is not None:  # one rematch per board
        board = Sent(interaction.message.channel.id, interaction.message.id)
        await flows.retire(interaction, board, keep=views.flip_view(view, "white"))
