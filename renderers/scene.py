"""What a picture of a game shows, as plain hashable values, without drawing anything.

A ``Scene`` says, for every square that is not simply empty, which piece it shows
and how the square is highlighted; and what the status strip and the two player
bars say. Two scenes can be compared square by square, which is how the GIF replay
repaints only what changed.

All the variant-specific reading of ``game.pos.extra`` is here, in ``side_info`` and
``status``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import variants
from variants import Game
from variants.position import Move, Piece
from variants.sentence import N_, Said, said, word
from variants.status import CHECK_FIRST, CHECK_LAST, SEPARATOR, side_word

from .layout import Layout, screen_facing

# Highlights of a square
NONE, LAST, CHECK, NEXT = "", "last", "check", "next"

# How a square looks: (highlight, sprite key or "", colour 0/1, badge text, sprite x offset)
CellKey = tuple[str, str, int, str, int]

# Captured and stock pieces are listed most valuable first.
_ORDER = ("KP", "Q", "T", "R", "G", "B", "N", "O", "I", "PO", "RA", "H", "P", "K")

# Actions that change nothing on the board: the picture keeps the move before them.
_BOARDLESS = frozenset({"roll", "reroll"})


@dataclass(frozen=True)
class Side:
    """One player's bar."""

    color: int
    to_move: bool
    waiting: tuple[str, ...]  # sprite keys of pieces waiting off the board
    waiting_badge: str  # a die value shown on the waiting piece ('' if none)
    stock: tuple[str, ...]  # kinds still to place (Jepps Random setup)
    offered: frozenset[str]  # kinds the dice offer to place now
    lost: tuple[str, ...]  # sprite keys of the pieces this side has lost


@dataclass(frozen=True)
class Status:
    """The status strip."""

    text: str  # whose turn it is, or the result: "White to move", "Black wins: checkmate"
    detail: str  # what the dice allow, in words ('' when nothing to say)
    badge: str  # a teleport or resurrection on offer, e.g. "Teleport to T3" ('' when none)
    disc: int  # colour of the disc before the text: 0/1, or -1 for none
    alert: bool  # check or game over: the text stands out
    dice: tuple[int, ...]
    sides: int
    offered: tuple[str, ...]  # sprite keys the dice offer (Jepps setup)
    offered_color: int


@dataclass(frozen=True)
class Scene:
    cells: dict[int, CellKey]
    status: Status
    top: Side
    bottom: Side


def sprite_key(p: Piece, flipped: bool) -> str:
    """The sprite that draws ``p``: a promoted King is 'KP'; a Raven carries its facing."""
    if p.kind == "K" and p.state == "+":
        return "KP"
    if p.kind == "RA":
        facing = p.state if p.state in ("N", "E", "S", "W") else ("N" if p.color == 0 else "S")
        return "RA:" + screen_facing(facing, flipped)
    return p.kind


def _rank(key: str) -> int:
    return _ORDER.index(key) if key in _ORDER else len(_ORDER)


def last_board_move(game: Game) -> Move | None:
    """The last action that changed the board (a roll or re-roll changes nothing)."""
    for m in reversed(game.moves):
        if m.flag not in _BOARDLESS:
            return m
    return None


def _placements(game: Game) -> list[Move]:
    """The placements open now, while a setup is in progress."""
    if game.pos.extra.get("phase") != "setup" or game.result is not None:
        return []
    return [m for m in game.legal_move_list() if m.flag == "place"]


def scene(game: Game, lay: Layout) -> Scene:
    g = lay.geometry
    pos = game.pos
    board = pos.board
    flipped = lay.flipped
    highlight: dict[int, str] = {}
    last = last_board_move(game)
    if last is not None:
        for s in (last.frm, last.to, last.gate):
            if s >= 0:
                highlight[s] = LAST
    places = _placements(game)
    for m in places:
        highlight[m.to] = NEXT
    king = game.checked_king()  # also after the game ends: the mated King stays marked
    if king >= 0:
        highlight[king] = CHECK

    cells: dict[int, CellKey] = {}
    doubles: dict[int, list[int]] = {}
    for s in g.squares:
        p = board[s]
        if p is None:
            if s in highlight:
                cells[s] = (highlight[s], "", 0, "", 0)
            continue
        if p.kind == "G" and p.state == "2":
            doubles.setdefault(p.color, []).append(s)
        badge = p.state if p.kind == "T" else ""
        cells[s] = (highlight.get(s, NONE), sprite_key(p, flipped), p.color, badge, 0)
    # A Guardener on its double start is drawn once, centred between its two squares.
    for squares in doubles.values():
        if len(squares) == 2:
            a, b = (lay.cells[s] for s in squares)
            mid_x, mid_y = (a[0] + b[0]) // 2, (a[1] + b[1]) // 2
            for s, box in zip(squares, (a, b), strict=True):
                h, key, color, badge, _ = cells[s]
                shift = (mid_x - box[0]) if mid_y == box[1] else 0
                cells[s] = (h, key, color, badge, shift)

    offered = frozenset(m.promo for m in places)
    placer = pos.turn if places else -1
    sides = [side_info(game, c, offered if c == placer else frozenset()) for c in (0, 1)]
    top = lay.top_color
    return Scene(cells, status(game, offered), sides[top], sides[1 - top])


def side_info(game: Game, color: int, offered: frozenset[str]) -> Side:
    extra = game.pos.extra
    waiting: tuple[str, ...] = ()
    badge = ""
    hand = extra.get("hand")  # Tquarchess: (White, Black) Tquarc still waiting to enter
    if isinstance(hand, tuple) and len(hand) == 2 and hand[color]:
        waiting = ("T",)
        if game.dice and game.pos.turn == color and game.rules.dice_sides == 0:
            badge = str(game.dice[0])  # the entry roll it would enter with
    stock: tuple[str, ...] = ()
    if extra.get("phase") == "setup":  # Jepps Random: kinds still to place
        stock = tuple(sorted(str(extra.get("stock", ("", ""))[color]), key=_rank))
    lost = tuple(sorted((k for c, k in game.captured if c == color), key=_rank))
    return Side(
        color=color,
        to_move=game.result is None and game.pos.turn == color,
        waiting=waiting,
        waiting_badge=badge,
        stock=stock,
        offered=offered,
        lost=lost,
    )


def status(game: Game, offered: frozenset[str]) -> Status:
    """The strip's words from ``variants.describe`` (contract C1): the same words the
    console and the Discord embed show."""
    st = variants.describe(game)
    dice = tuple(st.dice or ()) if st.phase != "over" else ()
    sides = st.dice_sides or game.rules.dice_sides or 4
    if dice:
        sides = max(sides, *dice)
    if st.phase == "over" or st.actor is None:
        result = game.result
        winner = result.winner if result is not None else None
        return Status(
            text=st.short,
            detail="",
            badge="",
            disc=-1 if winner is None else (0 if winner == "white" else 1),
            alert=True,
            dice=(),
            sides=sides,
            offered=(),
            offered_color=0,
        )
    who = st.actor.capitalize()
    side = side_word(st.actor)
    verb = word(N_("place") if st.phase == "setup" else N_("move"))
    text: str = said("{side} to {verb}", side=side, verb=verb)
    detail = st.short
    if st.check:
        text = said("{status}: check", status=text)
        detail = _unchecked(detail)
    if detail.startswith(f"{who} to "):  # describe's fallback: nothing beyond the headline
        detail = ""
    label = badge(game, st.pending)
    if label and set(_words(detail)) <= set(_words(label)):
        detail = ""  # the badge says it already ("teleport to Tquad 1")
    return Status(
        text=text,
        detail=detail,  # its first letter is made a capital where it is drawn
        badge=label,
        disc=game.pos.turn,
        alert=st.check,
        dice=dice,
        sides=sides,
        offered=tuple(sorted(offered, key=_rank)),
        offered_color=game.pos.turn,
    )


def _unchecked(short: str) -> str:
    """``describe``'s short form without its 'check' (the strip's first line says it)."""
    if isinstance(short, Said) and short.msgid in (CHECK_FIRST, CHECK_LAST):
        inner = short.params["short"]
        return inner if isinstance(inner, str) else str(inner)
    return _drop(_drop(short, f"Check{SEPARATOR}", front=True), f"{SEPARATOR}check")


def _drop(text: str, part: str, front: bool = False) -> str:
    if front:
        return text[len(part) :] if text.startswith(part) else text
    return text[: -len(part)] if text.endswith(part) else text


_WHERE = re.compile(r"\b(Tquad \d|T\d)\b")
_VALUE = re.compile(r"\bentry with value (\d)\b")


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in ("to", "the")]


def badge(game: Game, pending: str) -> str:
    """The badge for what ``describe`` says is pending: a teleport or resurrection on
    offer, or a Tquarc entry value rolled and waiting (RULES.md: Guardener "Double x2",
    Tquarchess teleport and entry). '' when nothing is pending."""
    if not pending:
        return ""
    flags = {m.flag for m in game.legal_move_list()}
    words = [w for f, w in (("teleport", "teleport"), ("drop", "resurrect")) if f in flags]
    head = pending.split(":", 1)[0]
    if not words:
        value = _VALUE.search(head)
        # (in capitals, in every language)
        return said("ENTRY VALUE {value}", value=value.group(1)) if value else head.upper()
    where = _WHERE.search(pending)
    if words == ["teleport", "resurrect"]:
        what: str = said("TELEPORT/RESURRECT")
    else:
        what = word(N_("TELEPORT")) if words == ["teleport"] else word(N_("RESURRECT"))
    if where is None:
        return what
    return said("{action} {where}", action=what, where=where.group(1).upper())
