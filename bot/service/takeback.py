"""Taking moves back: in hot-seat play (``GameService.undo``), and by agreement between
two players (``request_takeback``, then ``accept_takeback`` or ``decline_takeback``;
issue 27). Part of ``GameService`` (see ``bot.service``).

The log is append-only, so a take-back is an entry of its own (kind ``undo``, its
text ``undo <move>``), and every replay (``live.rebuild``, ``verify``) skips the move
it takes back. It is allowed only while no die has been rolled since that move: the
dice that follow are then the same with or without it, and the game stays
verifiable from its seed (RULES.md section 6).

A takeback by agreement takes back the asker's last move and every move after it (the
opponent's reply, if they made one): one ``undo`` entry per move, the latest first, as
the console's undo logs them, so ``/verify`` checks them the same way. The standing
request is the game's ``takeback_offer`` (the side that asked) and ``takeback_seq`` (the
log length then): any later entry makes it stale. With ``hold_boards_ms`` set (the
Discord bot) the request's post, the opponent's Accept/Decline message, is owed in the
request's transaction (a ``takeback`` outbox row, ``Outcome.owed``), held while the
asker's interaction posts it, as a person's board is; a row delivered after the request
was answered or went stale is settled unsent. Accepting owes the new board (``board``);
declining (or withdrawing) owes the request message's edit into the notice, its buttons
off (``takeback_answer``), held while the presser's interaction makes that edit. The computer answers at once: it
agrees at levels 1 and 2 (``COMPUTER_TAKEBACK_LEVELS``) and refuses at level 3.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import variants
from bot.i18n import said
from bot.service.access import Viewer
from bot.service.clock import turn_clock
from bot.service.core import check_id, clean_request, other_colour
from bot.service.errors import InvalidState, NotAllowed
from bot.service.live import Live, make_view, rebuild, taken_back
from bot.service.looking import Looking
from bot.service.results import GameView, Outcome
from bot.service.words import colour_name, colour_word
from storage import ActionRow, CommitUnknownError, GameChanges, GameRow, NewAction, WriteTx

COMPUTER_TAKEBACK_LEVELS = (1, 2)  # the computer agrees to a takeback at these levels


def undo_target(actions: Sequence[ActionRow]) -> ActionRow:
    """The move an undo would take back now: the last move not taken back yet, if no
    die has been rolled since it (its own rolls included). Else ``InvalidState``
    saying why, in the players' words."""
    try:
        undone = {move.seq for move in taken_back(actions).values()}
    except ValueError as error:
        raise InvalidState(
            said("this game's log cannot be taken back: {error}", error=str(error))
        ) from error
    moves = [a for a in actions if a.kind == "move" and a.seq not in undone]
    if not moves:
        raise InvalidState(said("there is no move to take back"))
    target = moves[-1]
    _refuse_if_rolled(actions, target)
    return target


def takeback_moves(actions: Sequence[ActionRow], user_id: int) -> list[ActionRow]:
    """The moves a takeback asked by ``user_id`` takes back: their last move not taken
    back yet, and every move after it. ``InvalidState`` saying why, in the players'
    words, when there is none, or when a die has been rolled since (its own included)."""
    try:
        undone = {move.seq for move in taken_back(actions).values()}
    except ValueError as error:
        raise InvalidState(
            said("this game's log cannot be taken back: {error}", error=str(error))
        ) from error
    moves = [a for a in actions if a.kind == "move" and a.seq not in undone]
    mine = [m for m in moves if m.actor_id == user_id]
    if not mine:
        raise InvalidState(said("you have no move to take back"))
    first = mine[-1]
    _refuse_if_rolled(actions, first)
    return [m for m in moves if m.seq >= first.seq]


def _refuse_if_rolled(actions: Sequence[ActionRow], move: ActionRow) -> None:
    """``InvalidState`` when a die was rolled with ``move`` (a Tquarc's roll) or since."""
    rolled = [v for a in actions if a.seq >= move.seq for _, v in a.rolls]
    if rolled:
        raise InvalidState(
            said(
                "{move} cannot be taken back: dice were rolled with it or since ([{dice}]); "
                "a move can be taken back only while no die has been rolled with it or after it",
                move=move.text,
                dice=" ".join(str(v) for v in rolled),
            )
        )


def may_offer_takeback(view: GameView) -> bool:
    """Whether a board offers a Takeback button: a game in play with a move made, no die
    showing, in a variant that does not roll at every turn, and not while the computer
    thinks. (The press is decided by the log: ``takeback_moves``.)"""
    if view.status != "active" or view.ply < 1 or view.dice:
        return False
    if view.computer is not None and view.turn == view.computer:
        return False
    return not variants.rules(view.variant).rolls_every_turn


def pending_takeback(row: GameRow) -> str | None:
    """The side whose takeback request stands, if any (a later entry makes it stale)."""
    if row.takeback_offer is None or row.takeback_seq != row.log_count:
        return None
    return str(row.takeback_offer)


def request_lines(
    row: GameRow, colour: str, moves: Sequence[ActionRow], label: Callable[[int], str]
) -> tuple[str, ...]:
    """What a takeback request asked by ``colour`` says: the moves, and who answers."""
    answerer = row.black_id if colour == "white" else row.white_id
    who = label(answerer) if answerer is not None else colour_word(other_colour(colour))
    return (
        said(
            "{colour} asks to take back {moves}.",
            colour=colour_name(colour),
            moves=moves_text(moves),
        ),
        said("{player}, accept or decline the takeback.", player=who),
    )


def answer_line(colour: str, *, withdrawn: bool) -> str:
    """What the request's message says once ``colour`` declined it (or withdrew their own)."""
    if withdrawn:
        return said(
            "{colour} withdraws the takeback request; the game goes on.",
            colour=colour_name(colour),
        )
    return said("{colour} declines the takeback; the game goes on.", colour=colour_name(colour))


def moves_text(moves: Sequence[ActionRow]) -> str:
    """``e4``, ``e4 and e5``, ``e4 and e5 and Nf3``."""
    if len(moves) <= 1:
        return "".join(m.text for m in moves)
    return said("{first} and {last}", first=moves_text(moves[:-1]), last=moves[-1].text)


class TakeBack(Looking):
    """``undo`` and takebacks by agreement; the commands that change a game are in
    ``bot.service.service``."""

    @staticmethod
    def _side_of(row: GameRow, user_id: int) -> str:
        if user_id not in (row.white_id, row.black_id):
            raise NotAllowed(said("you are not playing in this game"))
        return "white" if user_id == row.white_id else "black"

    async def request_takeback(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """Ask to take back your last move (and the reply to it, if made). Against a
        person this stands until they answer (``accept_takeback``/``decline_takeback``):
        the outcome has no board. The computer answers at once: at levels 1 and 2 the
        moves are taken back (the outcome has the board); at level 3 ``NotAllowed``."""
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        row = await self._find(location_id, game_id, live_only=True, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            async with self._write() as tx:
                row = await self._reload(tx, row.id)
                live = await self._active_live(tx, row)
                colour = self._side_of(row, user_id)
                if row.computer is not None:
                    if live.game.turn == row.computer:
                        raise InvalidState(
                            said("the computer is thinking; ask for a takeback after its move")
                        )
                    if row.computer_level not in COMPUTER_TAKEBACK_LEVELS:
                        raise NotAllowed(
                            said(
                                "the computer at level {level} does not take moves back; "
                                "it agrees to takebacks at levels 1 and 2",
                                level=row.computer_level,
                            )
                        )
                actions = await tx.actions(row.id)
                moves = takeback_moves(actions, user_id)
                if row.computer is not None:  # it agrees at once
                    done = await self._take_back(tx, row, actions, moves, user_id, request_id)
                    lead = said(
                        "The computer agrees: {colour} takes back {moves}.",
                        colour=colour_word(colour),
                        moves=moves_text(moves),
                    )
                    return await self._taken_back(done, lead, render)
                pending = pending_takeback(row)
                if pending == colour:
                    raise InvalidState(
                        said("you have already asked for a takeback; wait for the answer")
                    )
                if pending is not None:
                    raise InvalidState(
                        said("your opponent has asked for a takeback; accept or decline it first")
                    )
                row = await tx.update_game(
                    row.id,
                    GameChanges(takeback_offer=colour, takeback_seq=row.log_count),  # type: ignore[arg-type]
                )
                owed = None
                if self.hold_boards_ms is not None:  # the request's post is owed (see the module)
                    owed = await self._owe(
                        tx,
                        row,
                        "takeback",
                        payload={"asker": user_id},
                        delay_ms=self.hold_boards_ms,
                    )
            view = make_view(row, live)
        return Outcome(view, request_lines(row, colour, moves, self._label), owed=owed)

    async def accept_takeback(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        request_id: str | None = None,
        render: bool = False,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """Agree to your opponent's takeback request: the moves are taken back now."""
        user_id = check_id(user_id, "the user id")
        request_id = clean_request(request_id)
        row = await self._find(location_id, game_id, live_only=True, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            async with self._write() as tx:
                row, repeated = await self._reload_repeat(
                    tx, row.id, request_id, ("undo",), render, None
                )
                if repeated is not None:
                    return repeated
                await self._active_live(tx, row)
                colour = self._side_of(row, user_id)
                asker = self._pending_asker(row, colour)
                actions = await tx.actions(row.id)
                moves = takeback_moves(actions, asker)
                done = await self._take_back(tx, row, actions, moves, asker, request_id)
            asked = other_colour(colour)
            lead = said(
                "{colour} takes back {moves}; {other} agreed.",
                colour=colour_name(asked),
                moves=moves_text(moves),
                other=colour_word(colour),
            )
            return await self._taken_back(done, lead, render)

    async def decline_takeback(
        self,
        *,
        user_id: int,
        location_id: int | None = None,
        game_id: int | None = None,
        viewer: Viewer | None = None,
    ) -> Outcome:
        """Decline your opponent's takeback request, or withdraw your own."""
        user_id = check_id(user_id, "the user id")
        row = await self._find(location_id, game_id, live_only=True, viewer=viewer)
        async with self._lock(self._game_locks, row.id):
            async with self._write() as tx:
                row = await self._reload(tx, row.id)
                live = await self._active_live(tx, row)
                colour = self._side_of(row, user_id)
                pending = pending_takeback(row)
                if pending is None:
                    raise InvalidState(said("there is no takeback request to answer"))
                row = await tx.update_game(
                    row.id, GameChanges(takeback_offer=None, takeback_seq=None)
                )
                owed = None
                if self.hold_boards_ms is not None:  # the request's message, answered
                    owed = await self._owe(
                        tx,
                        row,
                        "takeback_answer",
                        payload={"colour": colour, "withdrawn": pending == colour},
                        delay_ms=self.hold_boards_ms,
                    )
            view = make_view(row, live)
        return Outcome(view, (answer_line(colour, withdrawn=pending == colour),), owed=owed)

    def _pending_asker(self, row: GameRow, colour: str) -> int:
        """The player whose request ``colour`` may accept, or why there is none."""
        pending = pending_takeback(row)
        if pending is None:
            raise InvalidState(said("there is no takeback request to answer"))
        if pending == colour:
            raise NotAllowed(said("you asked for this takeback; your opponent answers it"))
        asker = row.white_id if pending == "white" else row.black_id
        if asker is None:
            raise InvalidState(said("there is no takeback request to answer"))
        return asker

    async def _take_back(
        self,
        tx: WriteTx,
        row: GameRow,
        actions: Sequence[ActionRow],
        moves: Sequence[ActionRow],
        asker: int,
        request_id: str | None,
    ) -> tuple[GameRow, Live, int | None]:
        """Log one ``undo`` entry per move, the latest first (the first entry carries the
        request id), clear the request and any draw offer, and start the clock of the side
        now to act. The new state is a replay of the log (the engine has no unmake)."""
        entries: list[ActionRow] = []
        for number, move in enumerate(reversed(moves)):
            entries.append(
                ActionRow(
                    row.id,
                    row.log_count + 1 + number,
                    "undo",
                    request_id if number == 0 else None,
                    asker,
                    f"undo {move.text}",
                    (),
                    row.roll_count,
                    "",
                )  # fmt: skip
            )
        try:
            live = await self._cpu(rebuild, row, [*actions, *entries])
            for entry in entries:
                await tx.append_action(
                    NewAction(row.id, entry.seq, "undo", asker, entry.text, (), entry.request_id)
                )
            changes: dict[str, Any] = dict(draw_offer=None, takeback_offer=None, takeback_seq=None)
            turn = str(live.game.turn)
            if row.clock_side is not None and row.clock_side != turn:
                changes.update(turn_clock(row.time_days, turn, self._now_ms()))
            row = await tx.update_game(row.id, GameChanges(**changes))
            owed = await self._owe_board(tx, row, asker)
        except CommitUnknownError:
            self._cache.pop(row.id, None)
            raise
        return row, live, owed

    async def _taken_back(
        self, done: tuple[GameRow, Live, int | None], lead: str, render: bool
    ) -> Outcome:
        """After the commit: the takeback's outcome, with the board."""
        row, live, owed = done
        self._remember(row.id, live)
        self._announce_row(row)
        view = make_view(row, live)
        shown = await self._present(live, view, render=render)
        return Outcome(
            view,
            (lead, *self._status_lines(row, view)),
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
            owed=owed,
        )

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
                row, repeated = await self._reload_repeat(
                    tx, row.id, request_id, ("undo",), render, None
                )
                if repeated is not None:
                    return repeated
                await self._active_live(tx, row)
                if user_id not in (row.white_id, row.black_id):
                    raise NotAllowed(said("you are not playing in this game"))
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
            self._announce_row(row)  # committed: the listeners (live pages, clocks) learn
            view = make_view(row, live)
            shown = await self._present(live, view, render=render)
        colour = str(live.game.turn)
        return Outcome(
            view,
            (
                said("{colour} takes back {move}.", colour=colour_name(colour), move=target.text),
                *self._status_lines(row, view),
            ),
            shown.image,
            legal=shown.legal,
            dice_image=shown.dice_image,
            orientation=shown.side,
            status=shown.status,
        )
