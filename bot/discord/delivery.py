"""Delivering the outbox on Discord (issue 24): one worker per bot process sends the rows
the service owes (``bot.service.outbox``) with the bot's token, until Discord confirms.

- **Claimed, not taken.** The worker claims due rows through the store (a lease; one
  process delivers each row, however many share the store), builds each message from the
  game as stored (``GameService.owed``), sends it, and records what Discord made of it
  (the message id). A process killed mid-delivery leaves the row to be claimed again when
  its lease runs out, after a restart or by another process.
- **Never twice.** Every try of a row sends the same ``nonce`` with ``enforce_nonce``:
  when a try's outcome is unknown (a timeout, a reset, a process killed between Discord's
  answer and our record), the next try gets back the message the first one made instead
  of posting a second.
- **Transient failures** (5xx, 429, timeouts, resets) are tried again with a capped
  backoff; a 429 waits at least its ``retry_after``.
- **Permanent failures** (Missing Access, Missing Permissions, Unknown Channel, and any
  other refusal that a retry cannot change) are kept with Discord's reason: ``/games`` and
  ``/board`` show "cannot post in #channel: reason", and ``/relocate`` moves the game.
- **In order.** A channel's rows are delivered one at a time, in the order owed (the store
  hands out only the first pending row of each channel); different channels in parallel.
- A game thread that Discord archived meanwhile (after 7 days without a message) is
  reopened first: the bot may reopen a thread that is not locked.

The computer's moves are posted like a player's (``flows.board_message``): a new board
whose content pings the player to act, or tells both the result. While the computer
thinks, the board posted after the player's move says so instead of pinging anyone
(``adapter.turn_prompt``). A board row delivered after its game moved on is told in words,
without an old picture or buttons (``moved_on_post``).

After a board is posted (the computer's move, a loss on time), the previous board loses
its buttons, the new one is remembered, and an ended game's thread is archived if the bot
made it: each of those is safe to repeat; a failure to take the buttons off for now is
owed as a ``retire`` row, any other failure is logged (the message owed was delivered).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
import discord

from bot.discord import adapter, takebacks, threads, tournament_posts, translate
from bot.discord.adapter import Post
from bot.discord.analysis import summary_post
from bot.discord.deadline_posts import expired_embed, reminder_post, timeout_post
from bot.discord.flows import board_message
from bot.discord.refusals import Permanent, Transient, classify
from bot.service import COMPUTER_ID, GameService, Outcome, Owed, ServiceError
from storage import OutboxRow, StorageError

if TYPE_CHECKING:
    from bot.discord.app import ChessGardenBot

log = logging.getLogger(__name__)

T = TypeVar("T")

THREAD_ARCHIVED = 50083
UNKNOWN_MESSAGE = 10008
SEND_TIMEOUT_S = 30.0  # one request; an unknown outcome is settled by the nonce
BACKOFF_FIRST_S = 2.0
BACKOFF_CAP_S = 300.0
BATCH = 16
MAX_SLEEP_S = 30.0
PRUNE_EVERY_S = 3600.0


def backoff_s(attempts: int) -> float:
    """Seconds before try ``attempts + 1``: doubling from 2 s, at most 5 minutes, with
    a little jitter so that many rows do not come back at once."""
    base = min(BACKOFF_CAP_S, BACKOFF_FIRST_S * 2.0 ** max(0, attempts - 1))
    return base * random.uniform(0.8, 1.0)


class Delivery:
    """The bot's outbox worker; see the module. ``start()`` once the bot is ready,
    ``stop()`` on shutdown (rows not yet delivered stay owed in the store)."""

    def __init__(
        self,
        bot: ChessGardenBot,
        *,
        batch: int = BATCH,
        send_timeout_s: float = SEND_TIMEOUT_S,
        max_sleep_s: float = MAX_SLEEP_S,
    ) -> None:
        self.bot = bot
        self.batch = batch
        self.send_timeout_s = send_timeout_s
        self.max_sleep_s = max_sleep_s
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._sending = 0  # rows being delivered now

    @property
    def service(self) -> GameService:
        return self.bot.service

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self.running:
            return
        self._stopping = False
        self.service.add_outbox_listener(self.wake)
        self._task = asyncio.get_running_loop().create_task(self._run(), name="chessgarden-outbox")

    def wake(self) -> None:
        self._wake.set()

    async def stop(self, timeout_s: float = 10.0) -> int:
        """Let the rows being sent finish (at most ``timeout_s``), then stop; the rest stay
        owed in the store for the next start. How many sends were cut short (their rows
        are tried again once their lease runs out, with the same nonce)."""
        self.service.remove_outbox_listener(self.wake)
        task, self._task = self._task, None
        if task is None:
            return 0
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout_s)
            return 0
        except (TimeoutError, asyncio.CancelledError):
            cut = self._sending
            task.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await task
            return cut

    async def _run(self) -> None:
        pruned = 0.0
        while not self._stopping:
            self._wake.clear()
            if time.monotonic() - pruned > PRUNE_EVERY_S:  # delivered rows, a week on
                pruned = time.monotonic()
                with suppress(Exception):
                    await self.service.prune_owed()
            try:
                handled = await self.run_once()
            except (ServiceError, StorageError) as error:
                log.warning("outbox: the store could not hand out rows: %s", error)
                handled = 0
            except Exception:
                log.exception("outbox: a delivery pass failed")
                handled = 0
            if handled or self._stopping:
                continue
            await self._sleep()

    async def _sleep(self) -> None:
        delay = self.max_sleep_s
        try:
            due = await self.service.next_owed()
        except Exception as error:  # the store is down: try again after a while
            log.info("outbox: cannot read the next due row: %s", error)
            due = None
        if due is not None:
            delay = min(delay, max(0.0, (due - datetime.now(UTC)).total_seconds()) + 0.01)
        with suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), delay)

    async def run_once(self) -> int:
        """Claim the rows due now and deliver them (different channels at once); how
        many were claimed."""
        rows = await self.service.claim_owed(limit=self.batch)
        if rows:
            self._sending += len(rows)
            try:
                await asyncio.gather(*(self.deliver(row) for row in rows))
            finally:
                self._sending -= len(rows)
        return len(rows)

    async def deliver(self, row: OutboxRow) -> None:
        """One try of one row; settles it as sent, failed or to be tried again."""
        try:
            # the post (and its picture, drawn by ``owed``) speaks the server's language
            guild = self.bot.get_guild(row.guild_id) if row.guild_id is not None else None
            translate.use_locale(guild.preferred_locale if guild is not None else None)
            owed = await self.service.owed(row)
            if owed.superseded is not None:
                log.info("outbox %s (%s): nothing to post: %s", row.id, row.kind, owed.superseded)
                await self.service.owed_sent(row, channel_id=row.channel_id, message_id=None)
                return
            message = await self._send(owed)
        except (Transient, Permanent) as verdict:
            await self._settle_failure(row, verdict)
            return
        except (ServiceError, StorageError) as error:  # the store: try again later
            await self._settle_failure(row, Transient(f"the store failed: {error}"))
            return
        except Exception as error:
            log.exception("outbox %s: could not build %s", row.id, row.kind)
            await self._settle_failure(row, Transient(f"{type(error).__name__}: {error}"))
            return
        channel_id = message.channel.id if message is not None else row.channel_id
        message_id = message.id if message is not None else None
        await self.service.owed_sent(row, channel_id=channel_id, message_id=message_id)
        await self._after(owed, message)

    async def _settle_failure(self, row: OutboxRow, verdict: Transient | Permanent) -> None:
        metrics = getattr(self.bot, "metrics", None)
        if metrics is not None:
            metrics.outbox_failure(verdict.label)
        try:
            if isinstance(verdict, Permanent):
                await self.service.owed_failed(row, verdict.stored)
                return
            after = max(backoff_s(row.attempts), verdict.after_s or 0.0)
            log.info(
                "outbox %s (%s, game %s): try %d failed (%s); again in %.1f s",
                row.id, row.kind, row.game_id, row.attempts, verdict, after,
            )  # fmt: skip
            await self.service.owed_retry(row, after_ms=int(after * 1000), reason=str(verdict))
        except Exception as error:  # the lease runs out and the row is claimed again
            log.warning("outbox %s: could not record the failed try: %s", row.id, error)

    # ----- requests ---------------------------------------------------------------

    async def _send(self, owed: Owed) -> discord.Message | None:
        row = owed.row
        # no interaction to ask: the post speaks the server's language (its community
        # setting), else English; the worker's task keeps it until the next row
        guild = self.bot.get_guild(row.guild_id) if row.guild_id is not None else None
        translate.use_locale(guild.preferred_locale if guild is not None else None)
        if row.kind == "expired":
            return await self._edit_expired(owed)
        if row.kind == "takeback_answer":
            return await self._edit_answered(owed)
        if row.kind == "retire":
            await self._edit_buttons_off(
                row.guild_id, row.channel_id, int(row.payload["message_id"])
            )
            return None
        if row.kind.startswith("tournament_"):  # issue 30: rounds, games' threads, the end
            return await tournament_posts.send(self, owed)
        build = self._builder(owed)
        if build is None:
            return None
        return await self._request(
            row.channel_id,
            lambda: self.bot.get_partial_messageable(row.channel_id).send(
                nonce=row.nonce, **build().kwargs()
            ),
        )

    def _builder(self, owed: Owed) -> Callable[[], Post] | None:
        """A fresh ``Post`` for each request (a sent message's files are closed)."""
        row = owed.row
        if row.kind == "board" and owed.outcome is not None:
            outcome = owed.outcome
            if not owed.current:
                return lambda: moved_on_post(outcome)
            actor = int(row.payload.get("actor", COMPUTER_ID))
            return lambda: board_message(outcome, actor_id=actor)
        if row.kind == "reminder" and owed.event is not None:
            reminder = reminder_post(owed.event)  # no files: the same post serves each try
            if reminder is None:
                return None  # nobody to remind (the clock was taken off): nothing to post
            return lambda: reminder
        if row.kind == "timeout" and owed.event is not None:
            event = owed.event
            return lambda: timeout_post(event)
        if row.kind == "analysis" and owed.analysis is not None:
            report = owed.analysis
            locale = row.payload.get("locale")  # the asker's server's, as the graph is
            if isinstance(locale, str):
                translate.use_locale(locale)
            return lambda: summary_post(report)
        if row.kind == "takeback" and owed.outcome is not None:
            outcome = owed.outcome
            return lambda: takebacks.request_post(outcome, int(row.payload["asker"]))
        raise Permanent("unknown_kind", kind=row.kind)

    async def _edit_expired(self, owed: Owed) -> discord.Message | None:
        event = owed.event
        if event is None or event.board_message is None:
            return None  # no challenge message is known: nothing to edit
        channel_id, message_id = event.board_message
        channel = self.bot.get_partial_messageable(channel_id, guild_id=event.game.guild_id)
        return await self._request(
            channel_id,
            lambda: channel.get_partial_message(message_id).edit(
                embed=expired_embed(event), view=None, allowed_mentions=adapter.NO_PINGS
            ),
        )

    async def _edit_answered(self, owed: Owed) -> discord.Message | None:
        """A takeback request's message turned into its answer, the buttons off."""
        if owed.target is None or owed.outcome is None:
            return None
        channel_id, message_id = owed.target
        channel = self.bot.get_partial_messageable(channel_id, guild_id=owed.row.guild_id)
        embed = adapter.closed_embed(owed.outcome)
        return await self._request(
            channel_id,
            lambda: channel.get_partial_message(message_id).edit(
                embed=embed, view=None, allowed_mentions=adapter.NO_PINGS
            ),
        )

    async def _request(self, channel_id: int, request: Callable[[], Awaitable[T]]) -> T:
        """One request with a time limit; an archived thread is reopened and asked again.
        Failures come out as ``Transient`` or ``Permanent``."""
        try:
            try:
                return await asyncio.wait_for(request(), self.send_timeout_s)
            except discord.HTTPException as error:
                if error.code != THREAD_ARCHIVED:
                    raise
            await asyncio.wait_for(
                self.bot.http.edit_channel(channel_id, archived=False), self.send_timeout_s
            )
            return await asyncio.wait_for(request(), self.send_timeout_s)
        except discord.HTTPException as error:
            if error.code == UNKNOWN_MESSAGE:
                raise Permanent("message_deleted") from error
            raise classify(error) from error
        except (TimeoutError, aiohttp.ClientError, OSError) as error:
            raise classify(error) from error

    # ----- after a delivery ----------------------------------------------------------

    async def _after(self, owed: Owed, message: discord.Message | None) -> None:
        """Retire the previous board, remember the new one, archive an ended game's thread.
        Safe to repeat; failures are logged."""
        row = owed.row
        game = owed.outcome.game if owed.outcome is not None else None
        if game is None and owed.event is not None:
            game = owed.event.game
        if game is None:
            return
        try:
            boards = ("board", "timeout", "tournament_game")
            if message is not None and row.kind in boards and owed.current:
                previous = await self.service.set_board_message(
                    game_id=game.id, channel_id=message.channel.id, message_id=message.id
                )
                if previous is not None and previous != (message.channel.id, message.id):
                    await self._retire(game.id, game.guild_id, *previous)
            if game.is_over:
                channel: Any = self.bot.get_channel(row.channel_id)
                me = self.bot.user
                if channel is not None:
                    await threads.archive_if_ours(channel, me.id if me is not None else None)
        except Exception as error:
            log.info("outbox %s: after delivering: %s", row.id, error)

    async def _retire(
        self, game_id: int, guild_id: int | None, channel_id: int, message_id: int
    ) -> None:
        """Take the buttons off a game's previous board; if Discord fails for now, the
        edit is owed (a ``retire`` row)."""
        try:
            await self._edit_buttons_off(guild_id, channel_id, message_id)
        except Permanent as error:
            log.info("could not retire the buttons of message %s: %s", message_id, error)
        except Transient as error:
            log.info("retiring the buttons of message %s failed for now: %s", message_id, error)
            await self.service.owe_retire(
                game_id=game_id, channel_id=channel_id, message_id=message_id
            )

    async def _edit_buttons_off(
        self, guild_id: int | None, channel_id: int, message_id: int
    ) -> None:
        message = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await self._request(
                channel_id, lambda: message.get_partial_message(message_id).edit(view=None)
            )
        except Permanent as error:
            if "Unknown Message" in str(error):
                return  # deleted: no buttons left to take off
            raise


def moved_on_post(outcome: Outcome) -> Post:
    """A board row delivered after its game had moved on (it could not be posted in time):
    the news in words, without an old picture or buttons."""
    view = outcome.game
    embed = adapter.board_embed(view, outcome.messages, image=False, dice_image=False)
    return Post(embed=embed, game_id=view.id)
