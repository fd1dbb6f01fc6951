"""Jepps Random Chess: the back ranks are set up with two d6, then FIDE chess
with King relocation instead of castling. RULES.md section 5.

FEN: standard six fields during play, then an optional seventh: the sides
whose King may still relocate ("Kk", "K", "k" or "-"); without it, a King on
its home rank may relocate. A game mid-setup is not written as FEN (``fen``
says "setup" and the placements so far): replay its record instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any, ClassVar

from .base import ALL_SQUARES, Chance, Roller
from .chess import FIDE_PIECES, ChessLike
from .facts import SearchHints
from .geometry import BLACK, STANDARD, WHITE
from .position import NOTE, Move, Position, other, piece, with_side
from .record import ROMAN, Token, numbered
from .refusal import Blocked
from .sentence import N_
from .status import TurnFacts
from .words import jepps_random as words

SETUP_DIE = 6
# Die faces: 1 King, 2 Knight, 3 Bishop, 4 Rook, 5 Queen, 6 free choice.
FACE_KINDS = {1: "K", 2: "N", 3: "B", 4: "R", 5: "Q"}
FREE_FACE = 6
ARMY = "KQRRBBNN"
PAWNS_ONLY = "8/pppppppp/8/8/8/8/PPPPPPPP/8"
FREE_PLAY = "free_play"

# (reading) When every piece still to place is of one kind (the last piece, or
# e.g. two Knights), nothing is left to choose: the bot places them without a roll.
# The seed says "a maximum of 7 rolls are required".
ONE_KIND_LEFT_IS_FORCED = True

# The setup dice in words.
FACE_NAMES = {1: "King", 2: "Knight", 3: "Bishop", 4: "Rook", 5: "Queen", 6: N_("free choice")}

# (reading) Free Play numbering. The rule page writes the entries "as a regular first
# move" (1. Na1 Kh8 2. Bb1 Rg8 ...) with play from move 9, or, optionally, labels them
# i-viii so that play starts at move 1. We use the labels: the game proper then counts
# from 1, as the FEN does. "moves" would number the entries 1, 2, ... and play from 9.
FREE_PLAY_NUMBERING = "roman"
FREE_PLAY_FIRST_MOVE = 9  # where play starts with the "moves" numbering

MIRROR = N_("Mirror")
REVERSE = N_("Reverse")
# Where a position notes the mixed mediator dice (a note for the words, not state).
MEDIATOR_ROLL = NOTE + "mediator_roll"
_PLACEMENT = re.compile(r"[KQRBN][a-h][18]")


class JeppsRandom(ChessLike):
    key = "jepps_random"
    notation_examples = N_("Na1 (a setup placement), reroll, Mirror, Reverse; then e4, Nf3, Kg1")
    title = N_("Jepps Random Chess")
    summary = (
        "White fills a1-h1 one square at a time, choosing between the two pieces two d6 "
        "offer (1 K, 2 N, 3 B, 4 R, 5 Q, 6 any). A mediator roll makes Black mirror, "
        "reverse or roll its own setup. Then FIDE chess without castling: once per game an "
        "unmoved King may relocate to a vacant home-rank square of its own colour."
    )
    readings = (
        "On a double during setup you may take an offered piece or `reroll`.",
        "When the dice offer nothing you can place, the bot re-rolls by itself.",
        "When every piece left to place is of one kind, the bot places them without a roll.",
        "On a double mediator roll Black may `reroll` or accept the parity result.",
        "Free Play numbering: the entries are labelled i, ii, iii ... and the game proper is "
        "numbered from move 1, as the FEN counts it (the rule page's optional form)."
        if FREE_PLAY_NUMBERING == "roman"
        else "Free Play numbering: the entries are numbered 1, 2, 3 ... as regular moves and "
        f"the game proper starts at move {FREE_PLAY_FIRST_MOVE}.",
        "The setup record keeps each roll in brackets before the piece it placed "
        "([2 4] Na1, [3 5] Bb1, ...); a piece with no roll before it was placed by itself.",
    )
    geometry = STANDARD
    piece_types = FIDE_PIECES
    castling = False
    dice_sides = SETUP_DIE
    option_names = (FREE_PLAY,)
    dice_rolled = "only during the setup (for the placements and the mediator)"
    start_placement = PAWNS_ONLY
    # The search: checkmate wins; the noisy moves are cheaper made for their squares
    # only (126 against 225 microseconds a position); in the setup (21 outcomes, two or
    # three placements) Star2's probes rarely prove a cut: Star1 (``benchmarks/ai.py``).
    search = SearchHints(mating=True, narrow_noisy=True, chance="star1")
    # Facts of the rules above, read by the words too (``words.jepps_random``).
    army: ClassVar[str] = ARMY  # the pieces each side places
    face_kinds: ClassVar[dict[int, str]] = FACE_KINDS  # a setup die's face -> the kind
    face_names: ClassVar[dict[int, str]] = FACE_NAMES
    free_face: ClassVar[int] = FREE_FACE  # the face that offers any piece
    mediator_answers: ClassVar[tuple[str, str]] = (MIRROR, REVERSE)  # both even; both odd
    mediator_roll: ClassVar[str] = MEDIATOR_ROLL  # the note of the mixed mediator dice
    placement_text: ClassVar[re.Pattern[str]] = _PLACEMENT  # a placement, e.g. Na1

    # extra: 'phase' 'setup'|'play'; 'free' bool; 'stock' (white, black) strings of
    # kinds still to place; 'mediator' ''|'pending'|'random'|'mirror'|'reverse';
    # 'relocate' (white, black): King may still relocate; 'auto': forced placements
    # made after the last action, for the record. A note (``position.NOTE``), not
    # state: 'note_mediator_roll', the mixed mediator dice that sent Black to set up
    # with the dice, for the words.

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        opts = super().check_options(options)
        if FREE_PLAY in opts and not isinstance(opts[FREE_PLAY], bool):
            raise ValueError("free_play is true or false")
        return opts

    def initial_position(self, options: dict[str, Any], roll: Roller) -> Position:
        pos = self.attach(Position(self.parse_placement(PAWNS_ONLY)))
        pos.find_kings()
        pos.extra = {
            "phase": "setup",
            "free": bool(options.get(FREE_PLAY, False)),
            "stock": (ARMY, ARMY),
            "mediator": "",
            "relocate": (True, True),
            "auto": "",
        }
        return pos

    # ----- setup ---------------------------------------------------------------

    def order(self, pos: Position, color: int) -> tuple[int, ...]:
        """The squares a side fills, in order: a1..h1 for White; a8..h8 for Black,
        or h8..a8 with Free Play."""
        squares = self.geometry.rank_squares(1 if color == WHITE else 8)
        if color == BLACK and pos.extra["free"]:
            return squares[::-1]
        return squares

    def next_square(self, pos: Position, color: int) -> int:
        for sq in self.order(pos, color):
            if pos.board[sq] is None:
                return sq
        return -1

    def placer(self, pos: Position) -> int | None:
        """Who places next, or None when the setup is complete (or waits for the mediator)."""
        w, b = pos.extra["stock"]
        if pos.extra["free"]:
            if not w and not b:
                return None
            if not b or (w and len(w) >= len(b)):
                return WHITE
            return BLACK
        if w:
            return WHITE
        if pos.extra["mediator"] == "random" and b:
            return BLACK
        return None

    def feasible(self, pos: Position, color: int, kind: str, sq: int) -> bool:
        """Could ``kind`` go on ``sq`` and still leave the bishops on opposite colours?"""
        return kind in self.feasible_kinds(pos, color, (kind,), sq)

    def feasible_kinds(self, pos: Position, color: int, kinds: Sequence[str], sq: int) -> list[str]:
        """Those of ``kinds`` that could go on ``sq`` (``feasible``), the squares read once."""
        dark = self.geometry.dark
        board = pos.board
        order = self.order(pos, color)
        rest = [s for s in order if board[s] is None and s != sq]
        placed = [s for s in order if _kind(pos, s) == "B"]
        bishops = pos.extra["stock"][color].count("B")
        out = []
        for kind in kinds:
            mine = placed + [sq] if kind == "B" else placed
            left = bishops - (1 if kind == "B" else 0)
            if len(mine) == 2:
                fits = dark[mine[0]] != dark[mine[1]]
            elif len(mine) == 1:
                fits = left == 0 or any(dark[s] != dark[mine[0]] for s in rest)
            else:  # both bishops still to place
                fits = {dark[s] for s in rest} == {True, False}
            if fits:
                out.append(kind)
        return out

    def offered(self, dice: tuple[int, ...]) -> set[str]:
        kinds: set[str] = set()
        for v in dice:
            kinds |= set(ARMY) if v == FREE_FACE else {FACE_KINDS[v]}
        return kinds

    def placements(self, pos: Position, dice: tuple[int, ...] | None) -> list[Move]:
        color = pos.turn
        sq = self.next_square(pos, color)
        if dice is None or sq < 0:
            return []
        stock = pos.extra["stock"][color]
        offered = self.offered(dice)
        kinds = [k for k in "KQRBN" if k in stock and k in offered]
        return [Move(-1, sq, "place", promo=k) for k in self.feasible_kinds(pos, color, kinds, sq)]

    def forced_placement(self, pos: Position, color: int) -> Move | None:
        """The last piece, or a bishop with exactly one square of its colour left,
        or (reading, ONE_KIND_LEFT_IS_FORCED) any piece when all left are of one kind."""
        stock = pos.extra["stock"][color]
        empties = [s for s in self.order(pos, color) if pos.board[s] is None]
        if stock and (len(set(stock)) == 1 if ONE_KIND_LEFT_IS_FORCED else len(stock) == 1):
            return Move(-1, empties[0], "place", promo=stock[0])
        placed = [s for s in self.order(pos, color) if _kind(pos, s) == "B"]
        if stock.count("B") == 1 and len(placed) == 1:
            dark = self.geometry.dark
            fits = [s for s in empties if dark[s] != dark[placed[0]]]
            if len(fits) == 1:
                return Move(-1, fits[0], "place", promo="B")
        return None

    def place(self, pos: Position, color: int, move: Move) -> None:
        pos.put(move.to, piece(move.promo, color))
        stock = list(pos.extra["stock"])
        s = stock[color]
        i = s.index(move.promo)
        stock[color] = s[:i] + s[i + 1 :]
        pos.extra["stock"] = (stock[0], stock[1])
        if move.promo == "K":
            pos.kings[color] = move.to

    def advance(self, pos: Position) -> None:
        """After a setup action: make forced placements, pick who acts next,
        and start play when both ranks are full."""
        notes = []
        while True:
            color = self.placer(pos)
            if color is None:
                break
            forced = self.forced_placement(pos, color)
            if forced is None:
                pos.turn = color
                break
            self.place(pos, color, forced)
            notes.append(f"{self.types[forced.promo].letter}{self.name(forced.to)}")
        pos.extra["auto"] = " ".join(f"({n})" for n in notes)
        w, b = pos.extra["stock"]
        if not w and not pos.extra["free"] and pos.extra["mediator"] == "":
            pos.extra["mediator"] = "pending"
            pos.turn = BLACK
        if not w and not b:
            pos.extra["phase"] = "play"
            pos.turn = WHITE
            free_moves = pos.extra["free"] and FREE_PLAY_NUMBERING == "moves"
            pos.fullmove = FREE_PLAY_FIRST_MOVE if free_moves else 1
            pos.halfmove = 0
            pos.dice = None

    def rolls_at_turn_start(self, pos: Position) -> bool:
        return pos.extra["phase"] == "setup" and pos.dice is None

    def start_turn(self, pos: Position, roll: Roller) -> tuple[int, ...]:
        if pos.extra["phase"] != "setup" or pos.dice is not None:
            return ()
        if pos.extra["mediator"] == "pending":
            pos.dice = (roll(SETUP_DIE), roll(SETUP_DIE))
            a, b = pos.dice
            if a % 2 != b % 2:
                # One odd, one even: Black randomizes; roll for a8 straight away.
                pos.extra["mediator"] = "random"
                pos.extra[MEDIATOR_ROLL] = (a, b)
                pos.dice = None
                self.advance(pos)
                return self.start_turn(pos, roll)
            return pos.dice
        # Roll for the next square; when nothing offered can be placed, roll again.
        for _ in range(1000):
            pos.dice = (roll(SETUP_DIE), roll(SETUP_DIE))
            if self.placements(pos, pos.dice):
                return pos.dice
        raise RuntimeError("the setup dice offered nothing placeable 1000 times")

    def chances(self, pos: Position, move: Move | None = None) -> tuple[Chance, ...]:
        """The setup dice (two d6). A placement roll, or a ``reroll`` of one, is
        repeated by the bot until it offers something placeable, so each accepted
        roll has probability 1/(number of placeable rolls). The mediator roll: each
        same-parity roll 1/36 (Black then decides); any odd-even roll (18/36 in all)
        starts Black's own setup with the roll for a8, listed under (1, 2)."""
        if pos.extra["phase"] != "setup":
            return ()
        if move is None and pos.dice is not None:
            return ()
        if move is not None and move.flag != "reroll":
            return ()
        if pos.extra["mediator"] == "pending":
            return self.mediator_chances(pos)
        return self.placement_chances(pos)

    def placement_chances(
        self, pos: Position, before: tuple[int, ...] = (), weight: Fraction = Fraction(1)
    ) -> tuple[Chance, ...]:
        """The accepted placement rolls after ``before``, sharing ``weight``."""
        faces = range(1, SETUP_DIE + 1)
        accepted = [(a, b) for a in faces for b in faces if self.placements(pos, (a, b))]
        p = weight / len(accepted)
        return tuple(Chance(before + pair, p) for pair in accepted)

    def mediator_chances(self, pos: Position) -> tuple[Chance, ...]:
        faces = range(1, SETUP_DIE + 1)
        each = Fraction(1, SETUP_DIE * SETUP_DIE)
        out = [Chance((a, b), each) for a in faces for b in faces if a % 2 == b % 2]
        own = pos.copy()
        own.extra["mediator"] = "random"
        own.dice = None
        self.advance(own)
        mixed = each * sum(1 for a in faces for b in faces if a % 2 != b % 2)
        return tuple(out) + self.placement_chances(own, (1, 2), mixed)

    def setup_actions(self, pos: Position) -> list[Move]:
        dice = pos.dice
        if dice is None:
            return []
        double = dice[0] == dice[1]
        if pos.extra["mediator"] == "pending":
            parity = Move(-1, -1, "mirror" if dice[0] % 2 == 0 else "reverse")
            return [parity] + ([Move(-1, -1, "reroll")] if double else [])
        moves = self.placements(pos, dice)
        return moves + ([Move(-1, -1, "reroll")] if double else [])

    # ----- in words: status and refusals (variants/words/jepps_random.py) -----------

    def relaxed_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Blocked]:
        return words.relaxed_moves(self, pos)

    def explain_text(
        self, pos: Position, text: str, legal: Sequence[Move]
    ) -> tuple[str, str] | None:
        said = words.explain_text(self, pos, text, legal)
        return said if said is not None else super().explain_text(pos, text, legal)

    def castling_refusal(self, pos: Position, kingside: bool) -> tuple[str, str] | None:
        return words.castling_refusal(self, pos, kingside)

    def turn_facts(self, pos: Position, legal: Sequence[Move]) -> TurnFacts:
        """The setup step and the mediator result, or the King's relocation (RULES.md section 5)."""
        return words.turn_facts(self, pos, legal)

    # ----- moves ---------------------------------------------------------------

    def candidate_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        if pos.extra["phase"] == "setup":
            return self.setup_actions(pos)
        return super().candidate_moves(pos, to_mask)

    def generate_legal(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        if pos.extra["phase"] == "setup":
            return self.setup_actions(pos)
        return super().generate_legal(pos, to_mask)

    def quick_has_move(self, pos: Position) -> bool:
        # During the setup the actions are placements, not moves.
        return pos.extra["phase"] != "setup" and super().quick_has_move(pos)

    @cached_property
    def _home_masks(self) -> tuple[int, int]:
        """Each side's home rank as a bitboard, by colour."""
        g = self.geometry
        return tuple(  # type: ignore[return-value]
            sum(1 << s for s in g.rank_squares(1 if c == WHITE else 8)) for c in (WHITE, BLACK)
        )

    def special_moves(self, pos: Position, to_mask: int = ALL_SQUARES) -> list[Move]:
        """The King's relocation: once per game an unmoved King may go to any vacant
        home-rank square of its own colour: never out of check, onto an attacked square,
        or across an attacked vacant home-rank square."""
        color = pos.turn
        king = pos.kings[color]
        if king < 0 or not pos.extra["relocate"][color]:
            return []
        home_mask = self._home_masks[color]
        if not home_mask >> king & 1:
            return []
        if not to_mask & home_mask:
            return []  # only the moves to some other squares are asked for
        enemy = other(color)
        if self.is_attacked(pos, king, enemy):
            return []
        g = self.geometry
        home = g.rank_squares(1 if color == WHITE else 8)
        out = []
        for to in home:
            if to == king or pos.board[to] is not None or g.dark[to] != g.dark[king]:
                continue
            lo, hi = min(king, to), max(king, to)
            crossed = [s for s in home if lo < s <= hi and pos.board[s] is None]
            if any(self.is_attacked(pos, s, enemy) for s in crossed):
                continue
            out.append(Move(king, to, "relocate"))
        return out

    def relocation_block(self, pos: Position) -> str:
        """Why the side to act, whose King may still relocate, has no relocation now:
        ``check``, ``vacant`` (no vacant home-rank square of the King's colour) or
        ``attacked`` (each such square is attacked, or an empty one on the way is)."""
        color = pos.turn
        king = pos.kings[color]
        if self.is_attacked(pos, king, other(color)):
            return "check"
        g = self.geometry
        home = g.rank_squares(1 if color == WHITE else 8)
        vacant = [
            s for s in home if s != king and pos.board[s] is None and g.dark[s] == g.dark[king]
        ]
        return "attacked" if vacant else "vacant"

    def make(self, pos: Position, move: Move, roll: Roller) -> Position:
        new = pos.copy()
        new.extra["auto"] = ""
        if move.flag == "reroll":
            new.dice = (roll(SETUP_DIE), roll(SETUP_DIE))
            if new.extra["mediator"] == "pending":
                a, b = new.dice
                if a % 2 != b % 2:
                    new.extra["mediator"] = "random"
                    new.extra[MEDIATOR_ROLL] = (a, b)
                    new.dice = None
                    self.advance(new)
                    self.start_turn(new, roll)
                return new
            if not self.placements(new, new.dice):
                new.dice = None
                self.start_turn(new, roll)
            return new
        if move.flag in ("mirror", "reverse"):
            g = self.geometry
            white = [new.board[s] for s in g.rank_squares(1)]
            black = g.rank_squares(8)
            kinds = [p.kind for p in white if p is not None]
            if move.flag == "reverse":
                kinds = kinds[::-1]
            for sq, kind in zip(black, kinds, strict=True):
                self.place(new, BLACK, Move(-1, sq, "place", promo=kind))
            new.extra["mediator"] = move.flag
            new.dice = None
            self.advance(new)
            return new
        if move.flag == "place":
            self.place(new, new.turn, move)
            new.dice = None
            self.advance(new)
            return new
        if move.flag == "relocate":
            new.lift(move.frm, move.to)
            new.kings[new.turn] = move.to
            new.ep = -1
        else:
            self.make_board(new, move)
        if move.frm == pos.kings[pos.turn]:
            new.extra["relocate"] = with_side(new.extra["relocate"], pos.turn, False)
        self.finish(new, move, pos)
        return new

    def auto_note(self, pos: Position) -> str:
        return str(pos.extra.get("auto", ""))

    # ----- notation --------------------------------------------------------------

    def san(self, pos: Position, move: Move, legal: Sequence[Move]) -> str:
        if not move[2] or move[2] == "double":  # most texts: ``ChessLike.san``, called directly
            return ChessLike.san(self, pos, move, legal)
        if move.flag == "place":
            return f"{move.promo}{self.name(move.to)}"
        if move.flag == "reroll":
            return "reroll"
        if move.flag == "mirror":
            return MIRROR
        if move.flag == "reverse":
            return REVERSE
        if move.flag == "relocate":
            return f"K{self.name(move.to)}"
        return super().san(pos, move, legal)

    def normalize(self, text: str) -> str:
        t = super().normalize(text)
        return t.capitalize() if t.lower() in ("mirror", "reverse") else t

    # ----- the record ----------------------------------------------------------------

    def in_setup(self, pos: Position) -> bool:
        return bool(pos.extra["phase"] == "setup")

    def split_recorded(self, recorded: str) -> tuple[str, tuple[str, ...]]:
        """A placement and the forced ones after it, which may be either side's:
        ``Kc8 (Rg1) (Rb8)`` is ``Kc8`` and ``(Rg1, Rb8)``."""
        chosen, _, forced = recorded.partition(" (")
        return chosen, tuple(forced.rstrip(")").split(") (")) if forced else ()

    def record_lines(self, tokens: Sequence[Token], options: dict[str, Any]) -> list[str]:
        """The setup as the rule page writes it, then the game from move 1.

        Standard setup: White's placements on one line, comma-separated in file
        order (``[2 4] Na1, [3 5] Bb1, ..., Bg1, Rh1``), Black's ``Mirror``,
        ``Reverse`` or own string on the line below. Each roll stands in brackets
        before the piece it placed, so the record replays exactly; a piece with no
        roll before it was placed by itself (forced). Free Play: the entries are
        moves labelled i, ii, ... (``FREE_PLAY_NUMBERING``)."""
        setup = [t for t in tokens if t.setup]
        play = [t for t in tokens if not t.setup]
        if options.get(FREE_PLAY):
            setup = [Token(t.actor, _pairs(t.text), t.setup) for t in setup]
            if FREE_PLAY_NUMBERING == "roman":
                body = numbered(setup, labels=ROMAN) + numbered(play)
            else:
                body = numbered(setup) + numbered(play, first=FREE_PLAY_FIRST_MOVE)
            return [" ".join(body)]
        lines = self.setup_lines(setup)
        if play:
            lines.append(" ".join(numbered(play)))
        return lines

    def setup_lines(self, tokens: Sequence[Token]) -> list[str]:
        items: tuple[list[tuple[int, str]], list[tuple[int, str]]] = ([], [])
        pending: tuple[list[str], list[str]] = ([], [])
        for tok in tokens:
            text = _pairs(tok.text)
            if tok.is_roll:
                pending[tok.actor].append(text)
                continue
            action = _NOTE.sub("", text).strip()
            pending[tok.actor].append(action)
            if action in (MIRROR, REVERSE) or _PLACEMENT.fullmatch(action):
                items[tok.actor].append((self._item_order(action), " ".join(pending[tok.actor])))
                pending[tok.actor].clear()
            for note in _NOTE.findall(text):
                color = WHITE if note.endswith("1") else BLACK
                items[color].append((self._item_order(note), note))
        lines = []
        for color in (WHITE, BLACK):
            if pending[color]:
                items[color].append((99, " ".join(pending[color])))
            if items[color]:
                lines.append(
                    ", ".join(text for _, text in sorted(items[color], key=lambda i: i[0]))
                )
        return lines

    def _item_order(self, action: str) -> int:
        """Setup items stand in file order (a to h)."""
        return "abcdefgh".index(action[1]) if _PLACEMENT.fullmatch(action) else -1

    def setup_string(self, history: Sequence[str], color: int, free_play: bool = False) -> str:
        """The seed's setup notation, e.g. ``Na1, Bb1, Kc1, ...`` or ``Mirror``,
        in the order the side fills its rank (a to h; Black h to a with Free Play)."""
        rank = "1" if color == WHITE else "8"
        items = []
        for text in history:
            for tok in text.replace("(", " ").replace(")", " ").split():
                if tok in (MIRROR, REVERSE) and color == BLACK:
                    return tok
                if len(tok) == 3 and tok[0] in "KQRBN" and tok[2] == rank:
                    items.append(tok)
        files = "hgfedcba" if color == BLACK and free_play else "abcdefgh"
        return ", ".join(sorted(items, key=lambda tok: files.index(tok[1])))

    # ----- end of game / FEN --------------------------------------------------------

    def can_still_win(self, pos: Position, color: int) -> bool:
        """During the setup always (both armies are still being placed); then as FIDE,
        simplified: a lone King cannot win (RULES.md section 7)."""
        if pos.extra["phase"] == "setup":
            return True
        return any(k != self.royal for k in self.material(pos, color))

    def to_place(self, pos: Position, color: int) -> tuple[str, ...]:
        if pos.extra["phase"] != "setup":
            return ()
        return tuple(pos.extra["stock"][color])

    def outcome(self, pos: Position, history: Sequence[Any]) -> Any:
        if pos.extra["phase"] == "setup":
            return None
        return super().outcome(pos, history)

    def is_terminal(self, pos: Position) -> bool:
        return False

    def fen_extra(self, pos: Position) -> str:
        r = pos.extra["relocate"]
        return ("K" if r[WHITE] else "") + ("k" if r[BLACK] else "") or "-"

    def fen(self, pos: Position) -> str:
        if pos.extra["phase"] == "setup":
            return f"{self.placement(pos)} setup"
        return super().fen(pos)

    def parse_fen_extra(self, pos: Position, text: str) -> None:
        pos.extra = {
            "phase": "play",
            "free": False,
            "stock": ("", ""),
            "mediator": "done",
            "relocate": (True, True),
            "auto": "",
        }
        g = self.geometry
        if not text:
            pos.extra["relocate"] = tuple(
                pos.kings[c] >= 0 and g.rank_label(pos.kings[c]) == (1 if c == WHITE else 8)
                for c in (WHITE, BLACK)
            )
            return
        if text not in ("-", "K", "k", "Kk"):
            raise ValueError("Jepps Random FEN relocation field is Kk, K, k or -")
        pos.extra["relocate"] = ("K" in text, "k" in text)

    def extra_key(self, pos: Position) -> Any:
        return (
            pos.extra["phase"],
            pos.extra["stock"],
            pos.extra["mediator"],
            pos.extra["relocate"],
        )


_NOTE = re.compile(r"\s*\(([^)]*)\)")


def _pairs(text: str) -> str:
    """Several rolls in one bracket written as one bracket per roll of the two dice:
    ``[1 1 5 3]`` -> ``[1 1] [5 3]``."""

    def split(m: re.Match[str]) -> str:
        values = m.group(1).split()
        return " ".join(f"[{' '.join(values[i : i + 2])}]" for i in range(0, len(values), 2))

    return re.sub(r"\[([\d ]+)\]", split, text)


def _kind(pos: Position, sq: int) -> str | None:
    p = pos.board[sq]
    return p.kind if p is not None else None
