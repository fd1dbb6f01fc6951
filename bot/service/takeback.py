"""Taking a move back in hot-seat play (``GameService.undo``). Part of ``GameService``
(see ``bot.service``).

The log is append-only, so a take-back is an entry of its own (kind ``undo``, its
text ``undo <move>``), and every replay (``live.rebuild``, ``verify``) skips the move
it takes back. It is allowed only while no die has been rolled since that move: the
dice that follow are then the same with or without it, and the game stays
verifiable from its seed (RULES.md section 6).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.service.core import check_id, clean_request
from bot.service.errors import InvalidState, NotAllowed
from bot.service.live import make_view, rebuild, taken_back
from bot.service.looking import Looking
from bot.service.results import Outcome
from storage import ActionRow, GameChanges, NewAction


def undo_target(actions: Sequence[ActionRow]) -> ActionRow:
    """The move an undo would take back now: the last move not taken back yet, if no
    die has been rolled since it (its own rolls included). Else ``InvalidState``
    saying why, in the players' words."""
    try:
        undone = {move.seq for move in taken_back(actions).values()}
    except ValueError as error:
        raise InvalidState(f"this game's log cannot be taken back: {error}") from error
    moves = [a for a in actions if a.kind == "move" and a.seq not in undone]
    if not moves:
        raise InvalidState("there is no move to take back")
    target = moves[-1]
    rolled = [v for a in actions if a.seq >= target.seq for _, v in a.rolls]
    if rolled:
        dice = " ".join(str(v) for v in rolled)
        raise InvalidState(
            f"{target.text} cannot be taken back: dice were rolled since ([{dice}]); "
            "a move can be taken back only while no die has been rolled after it"
        )
    return target


class TakeBack(Looking):
    """``undo``; the commands that change a game are in ``bot.service.service``."""

    async def undo(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
    ) -> Outcome:
        """Take back the last move, in hot-seat play only (the console, both players at
        one keyboard): there is no ``viewer``, and no Discord command calls this.

        Allowed only while no die has been rolled since that move (its own rolls
        included): the dice that follow are then the same with or without it, so the
        game stays verifiable from its seed. The log stays append-only: the take-back
        is an ``undo`` entry naming the move, and a replay (``rebuild``, ``verify``)
        skips the move it takes back. Either player may ask; a standing draw offer lapses.
        """
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        row = await self._find(location_id, game_id, live_only=True)
        async with self._lock(self._game_locks, row.id):
            # The cached game is not touched until the entry is stored: the new state is
            # a replay of the log with the take-back (the engine has no unmake).
            async with self._write() as tx:
                row = await self._reload(tx, row.id)
                repeated = await self._repeat_request(tx, row, request_id, ("undo",), render, None)
                if repeated is not None:
                    return repeated
                await self._active_live(tx, row)
                if user_id not in (row.white_id, row.black_id):
                    raise NotAllowed("you are not playing in this game")
                actions = await tx.actions(row.id)
                target = undo_target(actions)
                text = f"undo {target.text}"
                entry = ActionRow(
                    row.id, row.log_count + 1, "undo", request_id, user_id, text, (),
                    row.roll_count, "",
                )  # fmt: skip
                live = await self._cpu(rebuild, row, [*actions, entry])
                await tx.append_action(
                    NewAction(row.id, entry.seq, "undo", user_id, text, (), request_id)
                )
                row = await tx.update_game(row.id, GameChanges(draw_offer=None))
            self._remember(row.id, live)
            view = make_view(row, live)
            shown = await self._present(live, view, render=render)
        colour = str(live.game.turn)
        return Outcome(
            view,
            (f"{colour.capitalize()} takes back {target.text}.", *self._status_lines(row, view)),
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            status=shown.status,
        )
