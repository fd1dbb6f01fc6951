"""A game is a record: its start (variant, options, setup) plus every action
with every roll. Replaying the record rebuilds the position exactly."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .base import Result, Variant, _no_roll
from .dice import DiceSource, ScriptedDice
from .errors import GameOver, IllegalMove, refusal_error
from .geometry import color_name
from .position import Move, Position
from .record import Token, options_header, parse_record, squash
from .refusal import Refusal

# ``Game._result`` while the end-of-turn test has not been made yet (see ``Game.result``).
_PENDING: Any = object()

# Shared (sides, value) pairs for ``Game.rolls``: a long game holds pointers, not tuples.
_ROLL_PAIRS: dict[tuple[int, int], tuple[int, int]] = {}


class Game:
    """One game of one variant, driven by one dice source."""

    def __init__(
        self,
        rules: Variant,
        *,
        options: dict[str, Any] | None = None,
        dice: DiceSource,
        fen: str | None = None,
    ) -> None:
        self.rules = rules
        self.options = rules.check_options(options or {})
        self.dice_source = dice
        self.start_fen = fen
        self.rolls: list[tuple[int, int]] = []
        self.history: list[str] = []
        self.moves: list[Move] = []
        self.tokens: list[Token] = []  # actions and turn rolls, for the record
        self._result: Result | None = None
        self.ended_by_players = False
        # The legal actions of this ply, once asked for, and their texts once a front end
        # asked for those (None until then: formatting them, check marks included, costs
        # several times what generating them does).
        self._legal: tuple[list[Move], list[str] | None] | None = None
        if fen is None:
            self.pos = rules.initial_position(self.options, self._roll)
        else:
            self.pos = rules.from_fen(fen)
        self.keys: list[Any] = [rules.repetition_key(self.pos)]
        self.captured: list[tuple[int, str]] = []  # (colour of the captured piece, kind)
        self.last_move: Move | None = None
        self.last_mover: int | None = None
        self._begin_turn()

    # ----- public API ------------------------------------------------------

    @property
    def variant(self) -> str:
        return self.rules.key

    @property
    def turn(self) -> str:
        return color_name(self.pos.turn)

    @property
    def dice(self) -> tuple[int, ...] | None:
        return self.pos.dice

    @property
    def result(self) -> Result | None:
        """None while the game goes on, else how it ended.

        The end-of-turn test (``Variant.outcome``) is made when something asks: here,
        or by ``play``, which needs less once it has found the text's action (a legal
        action proves that the side to act is not mated or stalemated). The value is
        the same as testing at every turn; it is tested once per turn."""
        r = self._result
        if r is _PENDING:
            r = self._result = self.rules.outcome(self.pos, self.keys)
        return r

    @result.setter
    def result(self, value: Result | None) -> None:
        self._result = value

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def legal_moves(self) -> list[str]:
        if self.result is not None:
            return []
        return list(self._legal_pairs()[1])

    def legal_actions(self) -> list[tuple[Move, str]]:
        if self.result is not None:
            return []
        moves, texts = self._legal_pairs()
        return list(zip(moves, texts, strict=True))

    def legal_move_list(self) -> list[Move]:
        """The legal actions now as engine moves, in ``legal_moves`` order, without their
        texts: for what needs only the moves (``describe``, the picture), which then
        does not pay for formatting every text."""
        if self.result is not None:
            return []
        return list(self._legal_only())

    def play(self, text: str) -> str:
        """Play one action written in notation; return it as recorded.

        A refused text raises ``IllegalMove`` (by cause: ``BadNotation``,
        ``NotLegalHere``, ``AmbiguousMove``, ``GameOver``) carrying the
        explanation as ``.refusal``; the game is left unchanged.

        Only the moves the text can name are generated and formatted
        (``Variant.legal_moves_to``, ``Notation.named_squares``),
        and the played move's check mark comes from the position it makes; the
        whole legal list is formatted when a front end asks for it."""
        if not isinstance(text, str):
            raise self._refused(text)
        r = self._result
        if r is not None and r is not _PENDING:
            raise self._refused(text)
        rules, pos = self.rules, self.pos
        if self._legal is not None and self._legal[1] is not None:
            moves, texts = self._legal[0], self._legal[1]
            try:
                move = rules.parse(pos, text, moves, texts)
            except IllegalMove as err:
                raise self._refused(text, err) from None
            return self._play_found(text, move, texts[moves.index(move)])
        # Only the actions the text can name: those to a square it names, and castling
        # (written with O's or zeros: "O-O", "0-0-0", "O-O/Th1"); each of them formatted.
        # A text naming no such action (a pass, a roll) is read against the whole list.
        castles = "O" in text or "0" in text
        named = rules.named_squares(text)
        plain = text.rstrip("+#") if text.endswith(("+", "#")) else text
        partial: list[str | None]
        if named or castles:
            moves = rules.legal_moves_to(pos, named, castles)
            # A canonical text, with or without its check mark, names its own action (the
            # parser's first reading; a record replays through here). The texts are
            # formatted the likeliest first: the moves of the piece the text's first
            # letter names.
            partial = [None] * len(moves)
            found = _canonical(rules, pos, plain, moves, partial)
            if found >= 0:
                return self._play_found(text, moves[found], plain, rules.has_check)
        else:
            # A text naming no square names an action without one (a roll, a pass): those
            # are read in the whole list, and only they are formatted.
            moves = rules.legal_moves(pos)
            partial = [rules.san(pos, m, moves) if m.to < 0 else None for m in moves]
            if plain in partial:
                return self._play_found(text, moves[partial.index(plain)], plain, rules.has_check)
        try:
            move = rules.parse(pos, text, moves, partial)
        except IllegalMove:
            # The error names what is legal: read the text again against every text.
            moves, texts = self._legal_pairs()
            try:
                move = rules.parse(pos, text, moves, texts)
            except IllegalMove as err:
                raise self._refused(text, err) from None
            return self._play_found(text, move, texts[moves.index(move)])
        san = partial[moves.index(move)]
        if san is None:  # not expected: the candidates cover every text the parser reads
            san = rules.san(pos, move, moves)
        return self._play_found(text, move, san, rules.has_check)

    def _play_found(self, text: str, move: Move, san: str, mark: bool = False) -> str:
        """Play the legal action ``text`` names, unless the game has ended: the end-of-turn
        test, when still to be made, knows now that the side to act has a legal action."""
        if self._result is _PENDING:
            self._result = self.rules.outcome_with_action(self.pos, self.keys)
        if self._result is not None:
            raise self._refused(text)
        return self._apply(move, san, mark)

    def explain(self, text: str) -> Refusal | None:
        """Why ``text`` cannot be played now, or None when it can (``variants.explain``)."""
        from .explain import explain

        return explain(self, text)

    def _refused(self, text: str, err: IllegalMove | None = None) -> IllegalMove:
        """The error for a refused text, with its explanation."""
        try:
            refusal = self.explain(text)
        except Exception:  # an explanation must never hide the refusal itself
            refusal = None
        if refusal is None:
            if err is not None:
                return err
            refusal = Refusal("not-legal", "that is not a legal action now", (), str(text))
        legal = self._legal_pairs()[1] if self.result is None else []
        return refusal_error(refusal, legal)

    def end(self, winner: str | None, reason: str) -> None:
        """End the game by the players' or a moderator's decision."""
        if self.result is not None:
            raise GameOver(f"the game is already over: {self.result}")
        if winner not in ("white", "black", None):
            raise ValueError("winner must be 'white', 'black' or None")
        self.result = Result(winner, reason)
        self.ended_by_players = True

    def copy(self) -> Game:
        new = Game.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.dice_source = self.dice_source.clone()
        new.rolls = self.rolls[:]
        new.history = self.history[:]
        new.moves = self.moves[:]
        new.tokens = self.tokens[:]
        new.keys = self.keys[:]
        new.captured = self.captured[:]
        new.options = dict(self.options)
        new.pos = self.pos.copy()
        return new

    def fen(self) -> str:
        return self.rules.fen(self.pos)

    def snapshot(self) -> bytes:
        """The game's state as compact, versioned bytes; ``variants.restore`` reads
        them back into a game that goes on exactly as this one (``variants/snapshot.py``)."""
        from .snapshot import snapshot

        return snapshot(self)

    def record(self) -> str:
        headers = [f'[Variant "{self.variant}"]']
        if self.options:  # as players type them: [Options "free_play"]
            headers.append(f"[Options {json.dumps(options_header(self.options))}]")
        if self.start_fen is not None:
            headers.append(f'[FEN "{self.start_fen}"]')
        if self.result is not None:
            headers.append(f'[Result "{self.result.score}"]')
            headers.append(f"[Termination {json.dumps(self.result.reason)}]")
            if self.ended_by_players:
                headers.append(f'[Ended "{self.result.winner or "draw"}"]')
        lines = self.rules.record_lines(self.tokens, self.options) or [""]
        if self.result is not None:
            lines[-1] = f"{lines[-1]} {self.result.score}".strip()
        return "\n".join(headers) + "\n\n" + "\n".join(lines) + "\n"

    # ----- internals -------------------------------------------------------

    def _roll(self, sides: int) -> int:
        value = self.dice_source.roll(sides)
        key = (sides, value)
        pair = _ROLL_PAIRS.get(key)
        if pair is None:
            pair = _ROLL_PAIRS.setdefault(key, key) if len(_ROLL_PAIRS) < 4096 else key
        self.rolls.append(pair)
        return value

    def _legal_only(self) -> list[Move]:
        if self._legal is None:
            self._legal = (self.rules.legal_moves(self.pos), None)
        return self._legal[0]

    def _legal_pairs(self) -> tuple[list[Move], list[str]]:
        moves = self._legal_only()
        texts = self._legal[1] if self._legal is not None else None
        if texts is None:
            texts = self.rules.format_moves(self.pos, moves)
            self._legal = (moves, texts)
        return moves, texts

    def _apply(self, move: Move, san: str, mark: bool = False) -> str:
        """Make ``move``; ``san`` is its text, without its check mark when ``mark``."""
        rules = self.rules
        rolls, tokens, captured, keys = self.rolls, self.tokens, self.captured, self.keys
        n_captured = len(captured)
        n_rolls = len(rolls)
        n_tokens = len(tokens)
        n_keys = len(keys)
        old = self.pos
        saved = (old, self._result, self.last_move, self.last_mover, self._legal)
        dice_mark = self.dice_source.checkpoint()
        try:
            mover = old.turn
            new = rules.make(old, move, self._roll)
            if mark:
                san += rules.check_mark(old, move, after=new)
            if len(rolls) > n_rolls:
                values = [v for _, v in rolls[n_rolls:]]
                recorded = rules.record_text(old, san, move, values)
            else:
                recorded = rules.record_text(old, san, move, ()) if rules.own_record_text else san
            if rules.own_notes:
                note = rules.auto_note(new)
                if note:
                    recorded += " " + note
                tokens.append(Token(mover, recorded, rules.in_setup(old)))
            else:
                tokens.append(Token(mover, recorded, False))
            if new.occ[1 - mover] != old.occ[1 - mover] or (rules.returns_from_lost and captured):
                self._note_captures(old, new)
            self.pos = new
            self._legal = None
            self.last_move = move
            self.last_mover = mover
            keys.append(rules.repetition_key(new))
            self._begin_turn()
        except Exception:
            self.pos, self._result, self.last_move, self.last_mover, self._legal = saved
            self.dice_source.rewind(dice_mark)
            del rolls[n_rolls:]
            del captured[n_captured:]
            del tokens[n_tokens:]
            del keys[n_keys:]
            raise
        folded = rules.folded_roll(old, move) if rules.own_folds else None
        if folded is not None:
            # The value rolled earlier this turn is written on this action instead.
            was, now = folded
            for i in range(len(tokens) - 2, -1, -1):
                tok = tokens[i]
                if tok.actor == mover and tok.text == was:
                    tokens[i] = Token(mover, now, tok.setup)
                    break
        self.history.append(recorded)
        self.moves.append(move)
        return recorded

    def _note_captures(self, old: Position, new: Position) -> None:
        """Pieces the opponent lost in this action, for the lost-pieces bars; and
        a lost piece the mover brought back (``Variant.returns_from_lost``) leaves them."""
        rules = self.rules
        mover = old.turn
        enemy = 1 - mover
        if new.occ[enemy] != old.occ[enemy]:  # an action never adds enemy pieces
            self.captured.extend((enemy, kind) for kind in rules.lost_kinds(old, new, enemy))
        back = rules.returns_from_lost
        # Only a kind whose count grew can have come back (the ``gained`` kinds below).
        if back and self.captured and rules.gains_kind(old, new, mover, back):
            if not any((mover, kind) in self.captured for kind in back):
                return
            for kind in rules.lost_kinds(new, old, mover):  # the kinds it gained
                if kind in back and (mover, kind) in self.captured:
                    at = len(self.captured) - 1 - self.captured[::-1].index((mover, kind))
                    del self.captured[at]

    def checked_king(self) -> int:
        """The square of the side to move's King when it stands in check, else -1."""
        if self.rules.has_check and self.rules.in_check(self.pos):
            return self.pos.kings[self.pos.turn]
        return -1

    def _begin_turn(self) -> None:
        """The start of a turn: the dice the side to act rolls first (when the game goes
        on); the end-of-turn test is left for when it is needed (``result``)."""
        rules, pos = self.rules, self.pos
        rolls = rules.turn_start_rolls
        if rolls is None:
            rolls = rules.rolls_at_turn_start(pos)
        if not rolls:
            self._result = _PENDING
            return
        # Dice are rolled only in a game that goes on: test before rolling.
        result = rules.outcome(pos, self.keys)
        if result is not None:
            self._result = result
            return
        before = len(self.rolls)
        rules.start_turn(pos, self._roll)
        if len(self.rolls) > before:
            self._legal = None
            values = " ".join([str(v) for _, v in self.rolls[before:]])
            setup = rules.own_notes and rules.in_setup(pos)
            self.tokens.append(Token(pos.turn, f"[{values}]", setup))
            self._result = _PENDING
        else:
            self._result = None


def _canonical(
    rules: Variant, pos: Position, plain: str, moves: list[Move], texts: list[str | None]
) -> int:
    """The index of the move in ``moves`` whose canonical text is ``plain``, else -1;
    ``texts`` receives every text formatted on the way (all of them when none matches).
    The moves of the piece that ``plain``'s first letter names are formatted first: a
    legal list's texts differ from each other, so the first match is the move."""
    head = plain[:1]
    pawn = head.islower()
    board = pos.board
    types = rules.types
    later = []
    for i, m in enumerate(moves):
        p = board[m[0]] if m[0] >= 0 else None
        if p is not None and (types[p.kind].letter == head or (pawn and types[p.kind].is_pawn)):
            text = texts[i] = rules.san(pos, m, moves)
            if text == plain:
                return i
        else:
            later.append(i)
    for i in later:
        text = texts[i] = rules.san(pos, moves[i], moves)
        if text == plain:
            return i
    return -1


# ----- records -------------------------------------------------------------


def replay_record(rules_for: Any, record: str, dice: DiceSource | None = None) -> Game:
    headers, actions, rolls = parse_record(record)
    rules = rules_for(headers["Variant"])
    options = json.loads(headers.get("Options", "{}"))
    source = ScriptedDice(rolls, then=dice)
    game = Game(rules, options=options, dice=source, fen=headers.get("FEN"))
    for text in actions:
        recorded = game.play(text)
        if recorded != text and squash(recorded) != squash(text):
            raise ValueError(f"record does not replay: {text!r} was played as {recorded!r}")
    if source.count != len(rolls) and dice is None:
        raise ValueError(
            f"record does not replay: it holds {len(rolls)} rolls but the game used {source.count}"
        )
    if "Ended" in headers and game.result is None:
        winner = headers["Ended"]
        game.end(None if winner == "draw" else winner, headers.get("Termination", "agreed"))
    return game


def perft(rules: Variant, pos: Position, depth: int) -> int:
    """Count legal action sequences of ``depth`` actions (rolls fixed at 1)."""
    if depth <= 0:
        return 1
    moves = rules.legal_moves(pos)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        new = rules.make(pos, m, _no_roll)
        if rules.is_terminal(new):
            continue
        rules.start_turn(new, _no_roll)
        total += perft(rules, new, depth - 1)
    return total


def roll_values(rolls: Iterable[tuple[int, int]]) -> list[int]:
    return [v for _, v in rolls]
