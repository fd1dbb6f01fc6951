"""Engine glue for the service: rebuilding a game from its stored log, mapping engine
errors, building result views, and drawing the board through one function."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, overload

import variants
from bot.i18n import DEFAULT, Speech, said
from bot.service.clock import from_ms, timeout_end
from bot.service.errors import CorruptGame, IllegalAction, RenderUnavailable
from bot.service.results import GameSummary, GameView
from storage import ActionRow, GameRow, ResultText, Roll
from storage.chain import head_of
from variants.dice import ScriptedDice, VerifiableDice
from variants.sentence import word

Renderer = Callable[..., bytes]
"""(game, orientation 'white'|'black') -> PNG bytes; called with a third argument, the
theme (``renderers.THEMES``), only for a theme other than the classic one, and with
``locale=`` (the words' language) only for a language other than English (issue 27)."""

DiceRenderer = Callable[[str, tuple[int, ...]], bytes]
"""(variant key, dice showing) -> PNG bytes."""

END_KINDS = ("resign", "draw_accept")


def render_board(
    game: Any, orientation: str = "white", theme: str = "classic", *, locale: str = DEFAULT
) -> bytes:
    """The one place the service draws a board: ``renderers.render_png``, its words in
    ``locale`` (issue 27). The same as ``paint_board(board_picture(...))``, which the
    service splits between the game's place and a painter process (issue 26)."""
    return paint_board(board_picture(game, orientation, theme, locale=locale))


def board_picture(
    game: Any, orientation: str = "white", theme: str = "classic", *, locale: str = DEFAULT
) -> Any:
    """What ``render_board`` with these arguments shows (``renderers.board.Picture``: plain
    values, cheap to make and to pickle), for ``paint_board``."""
    try:
        from renderers.board import picture
    except ImportError as error:
        raise RenderUnavailable(said("the board renderer is not available")) from error
    return picture(game, orientation=orientation, theme=theme, speech=_speech(locale))


def paint_board(pic: Any) -> bytes:
    """The PNG of a ``board_picture``, here or in a painter process."""
    try:
        from renderers.board import paint
    except ImportError as error:
        raise RenderUnavailable(said("the board renderer is not available")) from error
    return bytes(paint(pic, _speech(pic.locale)))


def _speech(locale: str) -> Any:
    """The renderers' own English (as before issue 27), else the catalogue's ``locale``."""
    if locale == DEFAULT:
        from renderers.speech import ENGLISH

        return ENGLISH
    return Speech(locale)


def dice_sides(variant_sides: int, dice: Sequence[int]) -> int:
    """The faces to draw: the variant's die, or the smallest common die that fits."""
    top = max(dice)
    if variant_sides >= top:
        return variant_sides
    for sides in (4, 6, 8, 10, 12, 20):
        if sides >= top:
            return sides
    return top


def render_dice(variant: str, dice: tuple[int, ...]) -> bytes:
    """The one place the service draws dice: ``renderers.render_dice_png`` with the
    variant's die (Guardener and Tquarchess d4, Jepps d6 for its setup)."""
    try:
        from renderers import render_dice_png
    except ImportError as error:
        raise RenderUnavailable(said("the dice renderer is not available")) from error
    sides = dice_sides(int(getattr(variants.rules(variant), "dice_sides", 0)), dice)
    return bytes(render_dice_png(dice, sides))


class LegalActions(Sequence[str]):
    """The legal actions of one position, in the engine's order and notation, with each
    text formatted only when it is read (``Outcome.legal``).

    Formatting every legal action, check marks included, costs several times what
    generating them does, and a front end rarely reads them all: the Discord board asks
    only whether ``reroll`` is among them. So the moves are generated with the outcome
    (cheap) and the texts are written when asked for: ``in`` formats only the actions the
    text can name (``Notation.candidates``: the same reading ``Game.play`` relies on), one
    index formats one action, and anything that reads the whole list (iterating, ``==``)
    formats them all, once. It equals the tuple of the same texts, and hashes like it.

    It keeps a copy of the position, so it says the same after the game moves on, and it
    may be read from any thread.
    """

    __slots__ = ("_groups", "_lock", "_moves", "_pos", "_rules", "_texts")

    def __init__(self, game: Any) -> None:
        """The legal actions of ``game`` now (none once it is over)."""
        moves = game.legal_move_list()
        self._rules = game.rules
        self._pos = game.pos.copy()
        self._moves: tuple[Any, ...] = tuple(moves)
        self._texts: tuple[str, ...] | None = None
        self._groups: dict[int, list[Any]] | None = None
        self._lock = threading.Lock()

    def _all(self) -> tuple[str, ...]:
        texts = self._texts
        if texts is None:
            with self._lock:
                texts = self._texts
                if texts is None:
                    texts = tuple(self._rules.format_moves(self._pos, self._moves))
                    self._texts = texts
        return texts

    def _text(self, index: int) -> str:
        """The text of one action, as ``format_moves`` writes it (disambiguated against
        the actions to the same square)."""
        texts = self._texts
        if texts is not None:
            return texts[index]
        with self._lock:
            groups = self._groups
            if groups is None:
                groups = {}
                for m in self._moves:
                    groups.setdefault(m.to, []).append(m)
                self._groups = groups
            move = self._moves[index]
            return str(self._rules.format_move(self._pos, move, groups[move.to]))

    def __len__(self) -> int:
        return len(self._moves)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return self._all()[index]
        if not -len(self._moves) <= index < len(self._moves):
            raise IndexError("legal action index out of range")
        return self._text(index % len(self._moves))

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __contains__(self, text: object) -> bool:
        if self._texts is not None:
            return text in self._texts
        if not isinstance(text, str):
            return False
        named = self._rules.candidates(text, self._moves)
        return any(self._text(i) == text for i, hit in enumerate(named) if hit)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalActions):
            return self._all() == other._all()
        if isinstance(other, tuple):
            return self._all() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())


def legal_actions(game: Any) -> Sequence[str]:
    """The legal actions of ``game`` now, their texts written when read (``LegalActions``);
    none once it is over."""
    if game.result is not None:
        return ()
    return LegalActions(game)


@dataclass
class Live:
    """A game's engine state, rebuilt from the log and kept in step with it.

    ``seq`` is the number of log entries applied; ``ply`` the number of moves; ``turns``
    the number of completed turns: moves after which the side to act changed (a re-roll,
    a Tquarc ``roll`` or a Jepps placement with more to place is not one). A timeout
    before the first completed turn aborts the game (``bot.service.clock``).
    ``snapshot_seq``: the log entry up to which the stored snapshot holds this game
    (``bot.service.snapshots``); a new one is due every ``SNAPSHOT_EVERY`` entries.
    ``partial``: the game was restored from a snapshot, so ``game.record()`` holds only
    what came after it (the whole record is a replay of the log: ``history`` does that).
    """

    game: Any  # variants.Game
    seq: int
    ply: int
    turns: int = 0
    snapshot_seq: int = 0  # the log entry of the latest snapshot taken of it (0: none)
    partial: bool = False  # restored from a snapshot: its record starts there


def dice_drawn(game: Any) -> int:
    """How many dice the game's source has produced (-1 if it does not say)."""
    return int(getattr(getattr(game, "dice_source", None), "count", -1))


def engine_dice(row: GameRow, stored: Sequence[Roll]) -> ScriptedDice:
    """Stored rolls first, then the game's verifiable dice from where they stopped."""
    if row.seed is None:
        raise CorruptGame(said("game {game} has no dice seed: it never started", game=row.id))
    values = [v for _, v in stored]
    return ScriptedDice(values, then=VerifiableDice(row.seed, row.id, start=len(values)))


def new_engine_game(variant: str, options: dict[str, Any], seed: str, game_id: int) -> Any:
    return variants.new_game(variant, options=options, dice=VerifiableDice(seed, game_id))


def all_rolls(row: GameRow, actions: Sequence[ActionRow]) -> list[Roll]:
    rolls = list(row.start_rolls)
    for action in actions:
        rolls.extend(action.rolls)
    return rolls


class Rewound(ValueError):
    """An 'undo' entry reached a cached game: the engine cannot unmake a move, so the
    game is rebuilt from the log instead (``rebuild`` skips the move taken back)."""


def taken_back(actions: Sequence[ActionRow]) -> dict[int, ActionRow]:
    """The moves that 'undo' entries take back: ``{undo seq: the move it takes back}``.
    Each undo takes back the latest move not already taken back. ``ValueError`` names
    an undo with no move left to take back."""
    moves: list[ActionRow] = []
    undone: dict[int, ActionRow] = {}
    for action in actions:
        if action.kind == "move":
            moves.append(action)
        elif action.kind == "undo":
            if not moves:
                raise ValueError(f"entry {action.seq} takes back a move, but no move is left")
            undone[action.seq] = moves.pop()
    return undone


def rebuild(row: GameRow, actions: Sequence[ActionRow]) -> Live:
    """Replay the stored log; every roll and every recorded text must come out the same.
    A move taken back by a later 'undo' entry is skipped (it rolled no die, so the dice
    after it are the same either way)."""
    try:
        game = variants.new_game(
            row.variant, options=row.options, dice=engine_dice(row, all_rolls(row, actions))
        )
    except ValueError as error:
        raise CorruptGame(
            said("game {game} cannot be set up again: {error}", game=row.id, error=str(error))
        ) from error
    if tuple(game.rolls) != tuple(row.start_rolls):
        raise CorruptGame(said("game {game}: the start rolls do not replay", game=row.id))
    try:
        skipped = {move.seq for move in taken_back(actions).values()}
    except ValueError as error:
        raise CorruptGame(said("game {game}: {error}", game=row.id, error=str(error))) from error
    live = Live(game=game, seq=0, ply=0)
    catch_up(row, live, actions, skipped)
    return live


def catch_up(
    row: GameRow,
    live: Live,
    actions: Sequence[ActionRow],
    skipped: set[int] | None = None,
) -> None:
    """Apply log entries ``live.seq + 1 ...`` to the engine state, checking each one.

    The engine's dice must already hold the entries' rolls: a full rebuild scripts
    them; a cached game whose dice continue from the seed draws the same values.
    ``skipped``: the moves taken back (``rebuild``); without it, an 'undo' entry
    raises ``Rewound`` and the caller rebuilds.
    """
    game = live.game
    for action in actions:
        if action.seq != live.seq + 1:
            raise CorruptGame(
                said("game {game}: log entry {seq} is missing", game=row.id, seq=live.seq + 1)
            )
        if action.kind == "move" and skipped is not None and action.seq in skipped:
            live.ply += 1  # made, and taken back later in the log (the undo counts it off)
        elif action.kind == "move":
            before = len(game.rolls)
            side = game.turn
            try:
                recorded = game.play(action.text)
            except ValueError as error:
                raise CorruptGame(
                    said(
                        "game {game}: stored action {seq} ({action}) does not replay: {error}",
                        game=row.id,
                        seq=action.seq,
                        action=action.text,
                        error=str(error),
                    )
                ) from error
            if recorded != action.text or tuple(game.rolls[before:]) != action.rolls:
                raise CorruptGame(
                    said(
                        "game {game}: stored action {seq} ({action}) replays differently",
                        game=row.id,
                        seq=action.seq,
                        action=action.text,
                    )
                )
            live.ply += 1
            if game.turn != side:
                live.turns += 1
        elif action.kind == "undo":
            if skipped is None:
                raise Rewound(f"game {row.id}: entry {action.seq} takes back a move")
            live.ply -= 1
        elif action.kind in END_KINDS and game.result is None:
            winner, reason = end_of(row, action)
            game.end(winner, reason)
        elif action.kind == "timeout" and game.result is None:
            end = timeout_end(game, live.turns)
            if end.status == "finished":  # an aborted game keeps no engine result
                game.end(end.winner, end.reason)
        live.seq = action.seq


def end_of(row: GameRow, action: ActionRow) -> tuple[str | None, str]:
    """The engine result an ending log entry stands for."""
    if action.kind == "draw_accept":
        return None, "agreement"
    resigner = action.text.split()[0] if action.text else ""
    if resigner not in ("white", "black"):
        resigner = "white" if action.actor_id == row.white_id else "black"
    return ("black" if resigner == "white" else "white"), "resignation"


def illegal(error: ValueError) -> IllegalAction:
    kind = "illegal"
    if isinstance(error, variants.BadNotation):
        kind = "syntax"
    elif isinstance(error, variants.AmbiguousMove):
        kind = "ambiguous"
    elif isinstance(error, variants.GameOver):
        kind = "over"
    return IllegalAction(
        str(error) or said("that action is not legal here"), kind, getattr(error, "refusal", None)
    )


def variant_title(key: str) -> str:
    """The variant's name as its rules declare it (``N_("Guardener Chess")``), as ``Said``:
    the one place every front end gets a variant's name from, so that a German reader sees
    "Guardener-Schach" wherever the name is said (an embed, a sentence, the graph's
    title, a choice). The policy for the catalogues: the proper name stays as it is, and a
    generic word for chess in it ("Chess") is translated ("Guardener-Schach"); a coined
    name ("Tquarchess") stays whole. An unknown key is said as it is."""
    try:
        title = getattr(variants.rules(key), "title", None)
    except ValueError:
        return key
    return word(title) if isinstance(title, str) else key


def result_text(winner: str | None) -> ResultText:
    scores: dict[str | None, ResultText] = {"white": "1-0", "black": "0-1", None: "1/2-1/2"}
    return scores[winner]


def winner_of(result: str | None) -> str | None:
    return {"1-0": "white", "0-1": "black"}.get(result or "")


def make_view(row: GameRow, live: Live | None) -> GameView:
    turn = to_move = dice = last = None
    ply = live.ply if live else 0
    if live is not None and row.status == "active":
        game = live.game
        turn = game.turn
        to_move = row.white_id if turn == "white" else row.black_id
        dice = tuple(game.dice) if game.dice is not None else None
    if live is not None and live.game.history:
        last = live.game.history[-1]
    if row.status == "challenge":
        to_move = row.opponent_id
    return GameView(
        id=row.id,
        variant=row.variant,
        variant_title=variant_title(row.variant),
        options=dict(row.options),
        status=row.status,
        location_id=row.location_id,
        guild_id=row.guild_id,
        challenger_id=row.challenger_id,
        opponent_id=row.opponent_id,
        white_id=row.white_id,
        black_id=row.black_id,
        turn=turn,
        to_move_id=to_move,
        dice=dice,
        ply=ply,
        last_move=last,
        result=row.result,
        winner=winner_of(row.result),  # type: ignore[arg-type]
        result_reason=row.result_reason,
        draw_offer=row.draw_offer,
        commitment=row.commitment,
        seed=row.seed if row.is_ended else None,
        time_days=row.time_days,
        deadline=deadline_of(row),
        computer=row.computer,
        computer_level=row.computer_level,
        rated=row.rated,
        chain_head=head_of(row),
    )


def deadline_of(row: GameRow) -> datetime | None:
    """When the side to act runs out of time (a challenge: when it expires); ``None``
    when untimed or over."""
    if not row.is_live or row.deadline_ms is None:
        return None
    return from_ms(row.deadline_ms)


def make_summary(row: GameRow) -> GameSummary:
    return GameSummary(
        id=row.id,
        variant=row.variant,
        status=row.status,
        location_id=row.location_id,
        guild_id=row.guild_id,
        challenger_id=row.challenger_id,
        opponent_id=row.opponent_id,
        white_id=row.white_id,
        black_id=row.black_id,
        result=row.result,
        result_reason=row.result_reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
        time_days=row.time_days,
        clock_side=row.clock_side if row.status == "active" else None,
        deadline=deadline_of(row),
        computer=row.computer,
        computer_level=row.computer_level,
        rated=row.rated,
    )


def dice_text(dice: tuple[int, ...] | None) -> str:
    return f"[{' '.join(str(v) for v in dice)}]" if dice else ""
