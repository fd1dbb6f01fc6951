"""Taking back a game nobody has seen: ``GameService.withdraw`` and ``release_computer``.
Part of ``GameService`` (see ``bot.service``).

A front end that makes a game somewhere new (Discord: a new thread) records it first and
posts it second. If the post fails, nobody can see the game, so it must not stay live:
the front end withdraws it, whatever its state, as long as no person has acted in it yet.

- a challenge is cancelled (as the challenger's Decline would), with no log entry (a
  challenge has no log);
- a started game (a game against the computer starts at once) is aborted with an
  ``abort`` log entry by the player who made it, its text saying why (``/history`` and
  ``/verify`` show it like a moderator's abort). The computer's own moves do not count as
  acting: a game it opened as White can still be withdrawn.

``play_computer(..., hold=True)`` keeps the computer from moving until the front end
says the game is visible (``release_computer``): its first move must not be posted where
nobody can see it, nor race the withdrawal. A held game is resumed like any other after
a restart (``ComputerRunner.start``), so a crash between the record and the post leaves
the game playable, never stuck.
"""

from __future__ import annotations

from bot.i18n import said
from bot.service.core import COMPUTER_ID, ServiceCore, check_id, clean_text
from bot.service.errors import InvalidState, NotAllowed
from bot.service.live import make_view
from bot.service.results import Outcome
from bot.service.words import status_word, stored_reason
from storage import GameChanges

WITHDRAWN = "withdrawn"


class Withdrawal(ServiceCore):
    """``withdraw`` and ``release_computer``; see the module."""

    async def withdraw(self, *, user_id: int, game_id: int, reason: str) -> Outcome:
        """Take back game ``game_id`` that ``user_id`` made, before anyone has acted in it:
        a challenge is cancelled, a started game aborted (logged). ``reason`` says why,
        for the log. ``NotAllowed`` for anyone but its maker; ``InvalidState`` once a
        person has acted in it, or when it is already over."""
        user_id = check_id(user_id, "the user id")
        game_id = check_id(game_id, "the game id")
        why = f"{WITHDRAWN}: {clean_text(reason)}"
        async with self._lock(self._game_locks, game_id), self._write() as tx:
            row = await self._reload(tx, game_id)
            if user_id != row.challenger_id:
                raise NotAllowed(
                    said("only the player who made game {game} can withdraw it", game=row.id)
                )
            if not row.is_live:
                raise InvalidState(
                    said(
                        "game {game} is already over ({status})",
                        game=row.id,
                        status=status_word(row.status),
                    )
                )
            if row.status == "challenge":
                row = await tx.update_game(
                    row.id, GameChanges(status="cancelled", deadline_ms=None, reminder_ms=None)
                )
            else:
                acted = [a for a in await tx.actions(row.id) if a.actor_id != COMPUTER_ID]
                if acted:
                    raise InvalidState(
                        said(
                            "game {game} has begun ({kind} by player {player}); resign it instead",
                            game=row.id,
                            kind=acted[0].kind,
                            player=acted[0].actor_id,
                        )
                    )
                _, row = await self._log_abort(tx, row, user_id, why)
        self._cache.pop(row.id, None)
        if row.status == "cancelled":
            done = said(
                "Game {game}: challenge cancelled ({reason}).",
                game=row.id,
                reason=stored_reason(why),
            )
        else:
            done = said(
                "Game {game}: game aborted ({reason}).", game=row.id, reason=stored_reason(why)
            )
        return Outcome(make_view(row, None), (done, *self._reveal_lines(row)))

    async def release_computer(self, *, game_id: int) -> None:
        """A game made with ``play_computer(hold=True)`` is visible now: if the computer is
        to act, it may (its listeners are told, as after any commit)."""
        row = await self.repo.get_game(check_id(game_id, "the game id"))
        if row is not None:
            self._announce_row(row)
