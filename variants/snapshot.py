"""Snapshots: a game's state as compact, versioned, deterministic bytes (contract C12).

``Game.snapshot()`` writes everything that decides the game from here on: the
position (pieces, side, castling, en passant, counters, dice showing, variant
state), the repetition keys of every position so far (for the repetition rules),
the roll counter of the dice (and a seeded source's generator state), the result,
the lost pieces, the last action. ``restore(data, dice)`` builds a ``Game`` that
behaves exactly like the original from there on, with ``dice`` continuing the
stream from the same roll.

The record so far is not in it: the caller keeps the log. A restored game's
``history``, ``moves`` and ``tokens`` hold only the last few actions (the last
board move, for the picture's highlight); its ``record()`` starts at the snapshot.

The same state always writes the same bytes (dictionaries and sets are written
sorted). Format: ``b"CGS"``, a version byte, then one tagged value (below).
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from .base import Result
from .dice import DiceSource
from .position import Move, Piece, Position, piece

if TYPE_CHECKING:
    from .game import Game

MAGIC = b"CGS"
VERSION = 1
# Actions with no board change: the tail keeps the last action that changed the board.
_BOARDLESS = frozenset({"roll", "reroll"})
_TAIL = 16  # at most this many last actions are kept

# ----- the value codec ----------------------------------------------------------------
# One tag byte, then: ints as zigzag varints; strings and bytes as varint length + bytes;
# tuples, lists, frozensets and dicts as varint count + items (sets and dicts sorted by
# their items' encodings, so equal values always write equal bytes).

_NONE, _TRUE, _FALSE, _INT, _STR, _BYTES, _TUPLE, _LIST, _SET, _DICT, _FLOAT = range(11)


def _varint(n: int, out: bytearray) -> None:
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def _encode(value: Any, out: bytearray) -> None:
    if value is None:
        out.append(_NONE)
    elif value is True:
        out.append(_TRUE)
    elif value is False:
        out.append(_FALSE)
    elif isinstance(value, int):
        out.append(_INT)
        _varint(value << 1 if value >= 0 else ((-value) << 1) - 1, out)
    elif isinstance(value, str):
        raw = value.encode()
        out.append(_STR)
        _varint(len(raw), out)
        out += raw
    elif isinstance(value, bytes):
        out.append(_BYTES)
        _varint(len(value), out)
        out += value
    elif isinstance(value, float):
        out.append(_FLOAT)
        out += struct.pack(">d", value)
    elif isinstance(value, tuple | list):
        out.append(_TUPLE if isinstance(value, tuple) else _LIST)
        _varint(len(value), out)
        for v in value:
            _encode(v, out)
    elif isinstance(value, frozenset | set):
        out.append(_SET)
        _varint(len(value), out)
        for item in sorted(_encoded(v) for v in value):
            out += item
    elif isinstance(value, dict):
        out.append(_DICT)
        _varint(len(value), out)
        for k, v in sorted((_encoded(k), _encoded(v)) for k, v in value.items()):
            out += k
            out += v
    else:
        raise TypeError(f"a snapshot cannot hold a {type(value).__name__}")


def _encoded(value: Any) -> bytes:
    out = bytearray()
    _encode(value, out)
    return bytes(out)


class _Reader:
    __slots__ = ("data", "at")

    def __init__(self, data: bytes, at: int) -> None:
        self.data = data
        self.at = at

    def varint(self) -> int:
        n = shift = 0
        data = self.data
        while True:
            b = data[self.at]
            self.at += 1
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7

    def raw(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise IndexError("truncated")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def value(self) -> Any:
        tag = self.data[self.at]
        self.at += 1
        if tag == _NONE:
            return None
        if tag == _TRUE:
            return True
        if tag == _FALSE:
            return False
        if tag == _INT:
            z = self.varint()
            return z >> 1 if not z & 1 else -((z + 1) >> 1)
        if tag == _STR:
            return self.raw(self.varint()).decode()
        if tag == _BYTES:
            return self.raw(self.varint())
        if tag == _FLOAT:
            return struct.unpack(">d", self.raw(8))[0]
        if tag in (_TUPLE, _LIST):
            items = [self.value() for _ in range(self.varint())]
            return tuple(items) if tag == _TUPLE else items
        if tag == _SET:
            return frozenset(self.value() for _ in range(self.varint()))
        if tag == _DICT:
            out = {}
            for _ in range(self.varint()):
                k = self.value()
                out[k] = self.value()
            return out
        raise ValueError(f"unknown tag {tag}")


def encode_value(value: Any) -> bytes:
    """The codec on its own (tests): one plain value as bytes."""
    return _encoded(value)


def decode_value(data: bytes) -> Any:
    reader = _Reader(data, 0)
    value = reader.value()
    if reader.at != len(data):
        raise ValueError("trailing bytes")
    return value


# ----- repetition keys -------------------------------------------------------------


def _pack_keys(keys: list[Any]) -> Any:
    """64-bit keys as one block of 8 bytes each; any other kind of key as values."""
    if all(type(k) is int and 0 <= k < 1 << 64 for k in keys):
        return b"".join(k.to_bytes(8, "big") for k in keys)
    return tuple(keys)


def _unpack_keys(packed: Any) -> list[Any]:
    if isinstance(packed, bytes):
        if len(packed) % 8:
            raise ValueError("bad key block")
        return [int.from_bytes(packed[i : i + 8], "big") for i in range(0, len(packed), 8)]
    return list(packed)


# ----- the game ---------------------------------------------------------------------


def snapshot(game: Game) -> bytes:
    """The game's state as bytes (see the module docstring)."""
    pos = game.pos
    palette: dict[Piece, int] = {}
    squares: list[int] = []
    for sq, p in enumerate(pos.board):
        if p is not None:
            squares.append(sq)
            squares.append(palette.setdefault(p, len(palette)))
    tail = _tail(game)
    dice = game.dice_source
    body = (
        game.rules.key,
        game.options,
        game.start_fen,
        tuple((p.kind, p.color, p.state) for p in palette),
        tuple(squares),
        pos.turn,
        pos.castling,
        pos.ep,
        pos.halfmove,
        pos.fullmove,
        tuple(pos.kings),
        pos.dice,
        pos.extra,
        _pack_keys(game.keys),
        dice.count,
        dice.snapshot_state(),
        None if game.result is None else (game.result.winner, game.result.reason),
        game.ended_by_players,
        None if game.last_move is None else tuple(game.last_move),
        game.last_mover,
        tuple(game.captured),
        len(game.history),
        tuple(tuple(m) for m in game.moves[-tail:]) if tail else (),
        tuple(game.history[-tail:]) if tail else (),
    )
    out = bytearray(MAGIC)
    out.append(VERSION)
    _encode(body, out)
    return bytes(out)


def _tail(game: Game) -> int:
    """How many last actions to keep: back to the last one that changed the board."""
    moves = game.moves
    n = 0
    for m in reversed(moves):
        n += 1
        if m.flag not in _BOARDLESS or n >= _TAIL:
            break
    return min(n, len(game.history))


def restore(data: bytes, dice: DiceSource) -> Game:
    """The game a snapshot holds, its dice continuing from the snapshot's roll with
    ``dice`` (the same stream as the original's: same seed and game id)."""
    from . import rules as rules_for
    from .game import Game

    if not isinstance(data, bytes | bytearray) or data[:3] != MAGIC or len(data) < 5:
        raise ValueError("that is not a Chess Garden game snapshot")
    if data[3] != VERSION:
        raise ValueError(
            f"snapshot version {data[3]} is not readable here (this is version {VERSION})"
        )
    try:
        reader = _Reader(bytes(data), 4)
        body = reader.value()
        if reader.at != len(data) or not isinstance(body, tuple) or len(body) != 24:
            raise ValueError("bad layout")
    except (IndexError, ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"the game snapshot is damaged ({err})") from None
    (
        key,
        options,
        start_fen,
        palette,
        squares,
        turn,
        castling,
        ep,
        halfmove,
        fullmove,
        kings,
        showing,
        extra,
        keys,
        count,
        dice_state,
        result,
        ended,
        last_move,
        last_mover,
        captured,
        _plies,
        tail_moves,
        tail_history,
    ) = body
    rules = rules_for(key)
    board: list[Piece | None] = [None] * rules.geometry.size
    pieces = [piece(kind, color, state) for kind, color, state in palette]
    for i in range(0, len(squares), 2):
        board[squares[i]] = pieces[squares[i + 1]]
    pos = Position(
        board,
        turn=turn,
        castling=castling,
        ep=ep,
        halfmove=halfmove,
        fullmove=fullmove,
        kings=list(kings),
        dice=showing,
        extra=extra,
    )
    rules.attach(pos)
    dice.resume(count, dice_state)
    game = Game.__new__(Game)
    game.rules = rules
    game.options = options
    game.dice_source = dice
    game.start_fen = start_fen
    game.rolls = []
    game.history = list(tail_history)
    game.moves = [Move(*m) for m in tail_moves]
    game.tokens = []
    game.result = None if result is None else Result(result[0], result[1])
    game.ended_by_players = ended
    game._legal = None
    game.pos = pos
    game.keys = _unpack_keys(keys)
    game.captured = [(int(c), str(k)) for c, k in captured]
    game.last_move = None if last_move is None else Move(*last_move)
    game.last_mover = last_mover
    return game
