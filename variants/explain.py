"""Why a text is refused: one sentence naming the rule, and the closest legal actions.

``explain(game, text)`` is the one function every front end uses (contract C2).
It runs only when a text is refused, so the happy path of ``play`` never pays.

How the rule is found, most specific first:

1. Rule-blocked moves (``blocked_moves``): every move the pieces could make but
   exactly one rule takes away. The core supplies two kinds: moves the dice or
   turn rules refuse (``Variant.permits``, explained by ``why_not_permitted``)
   and moves that leave the King in check (the check filter). Each variant adds
   moves made with one of its own restrictions relaxed (``relaxed_moves``: a
   missing assist, a Raven's cooldown, a teleport out of turn, a setup square out
   of order...). The text is parsed against these with the variant's own
   forgiving parser; the first match names the rule.
2. Whole words and phrases (``explain_text``): castling, setup words.
3. Geometry (``explain_intent``): the text read as piece, origin and destination;
   no such piece, not your piece, the piece cannot reach, the path is blocked,
   the square is yours, promotion needed or not allowed.
4. Otherwise the text is not an action in this variant's notation.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from .base import ALL_SQUARES
from .errors import AmbiguousMove, IllegalMove
from .piece_words import (
    CANNOT_REACH_HOW,
    noun,
    piece_name,
    self_check_message,
    side_name,
)
from .position import Move, Position, other
from .refusal import Blocked, Refusal
from .sentence import Said, said, word
from .status import either, result_words

if TYPE_CHECKING:
    from .base import Variant
    from .game import Game

CLOSEST = 5  # legal actions offered with a refusal

# Causes of the core (variants add their own, e.g. 'dice', 'needs-assist', 'raven-cooldown').
PRIORITY = ("blocked", "occupied", "capture-only", "no-capture", "unreachable")


def explain(game: Game, text: str) -> Refusal | None:
    """Why ``text`` cannot be played in ``game`` now, or None when it can."""
    if not isinstance(text, str):
        kind = type(text).__name__
        return Refusal("notation", said("an action is text, not {kind}", kind=kind), ())
    if game.result is not None:
        over = said("the game is over: {result}", result=result_words(game.result))
        return Refusal("game-over", over, (), text.strip())
    actions = game.legal_actions()
    legal = [m for m, _ in actions]
    texts = [t for _, t in actions]
    rules, pos = game.rules, game.pos
    try:
        rules.parse(pos, text, legal, texts)
        return None
    except AmbiguousMove as err:
        choices = err.choices or closest(rules, pos, text, legal, texts)
        return Refusal(
            "ambiguous",
            said(
                "ambiguous: it could be {choices} (name the piece's file or rank)",
                choices=either(choices),
            ),
            tuple(choices[:CLOSEST]),
            text.strip(),
        )
    except IllegalMove:
        pass
    return diagnose(rules, pos, text, legal, texts)


def diagnose(
    rules: Variant, pos: Position, text: str, legal: Sequence[Move], texts: Sequence[str]
) -> Refusal:
    """The refusal of a text that no legal action matches."""
    typed = text.strip()
    if not typed:
        return Refusal("notation", said("an empty text is not an action"), (), typed)
    if len(text) > 64:
        return Refusal("notation", said("that is too long to be an action"), (), typed[:64])
    found = match_blocked(rules, pos, text, legal)
    if found is not None:
        near = closest(rules, pos, text, legal, texts, near=found.move)
        return Refusal(found.cause, found.message, near, typed)
    spoken = rules.explain_text(pos, text, legal)
    if spoken is not None:
        return Refusal(spoken[0], spoken[1], closest(rules, pos, text, legal, texts), typed)
    intent = read_intent(rules, text)
    if intent is None:
        message: str = said(
            "not an action in {variant} notation (actions look like {examples})",
            variant=word(rules.title),
            examples=word(rules.notation_examples),
        )
        return Refusal("notation", message, closest(rules, pos, text, legal, texts), typed)
    cause, message, resembles = explain_intent(rules, pos, intent, legal)
    return Refusal(cause, message, closest(rules, pos, text, legal, texts, near=resembles), typed)


# ----- 1. moves a single rule takes away --------------------------------------------------


def blocked_moves(
    rules: Variant, pos: Position, legal: Sequence[Move], to_mask: int = ALL_SQUARES
) -> list[Blocked]:
    """Every move the pieces could make now that one rule takes away, with the rule.
    With ``to_mask``, at least every such move ending on one of its squares."""
    return list(_searched(rules, pos, legal, to_mask).blocked)


@dataclass
class _Searched:
    """The rule-blocked moves of one position (``blocked_moves``), kept on the variant
    for the next refused text: a player, or a test, who types several refused texts in a
    row has them read against a list built once. ``texts`` keeps each move's notation as
    ``match_blocked`` formats it (the same whatever squares a text names)."""

    state: tuple[object, ...]
    legal: tuple[Move, ...]
    to_mask: int
    blocked: tuple[Blocked, ...]
    texts: dict[Move, str]

    def serves(self, pos: Position, legal: Sequence[Move], to_mask: int) -> bool:
        return (
            (self.to_mask == to_mask or self.to_mask == ALL_SQUARES)
            and self.legal == tuple(legal)
            and self.state == _state(pos)
        )


def _state(pos: Position) -> tuple[object, ...]:
    """Every field of ``pos``, compared by value: a copied position is the same position
    (``Game.copy``), and a position changed in place is another one."""
    return (
        pos.dice,
        tuple(pos.board),
        pos.turn,
        pos.castling,
        pos.ep,
        pos.halfmove,
        pos.fullmove,
        pos.kings,
        tuple(sorted(pos.extra.items())),
    )


def _searched(rules: Variant, pos: Position, legal: Sequence[Move], to_mask: int) -> _Searched:
    memo = rules._blocked_memo
    if isinstance(memo, _Searched) and memo.serves(pos, legal, to_mask):
        return memo
    found = _Searched(_state(pos), tuple(legal), to_mask, (), {})
    found.blocked = tuple(_blocked_moves(rules, pos, legal, to_mask))
    rules._blocked_memo = found
    return found


def _blocked_moves(
    rules: Variant, pos: Position, legal: Sequence[Move], to_mask: int
) -> list[Blocked]:
    legal_set = set(legal)
    seen: set[Move] = set()
    out: list[Blocked] = []
    for m in rules.candidate_moves(pos, to_mask):
        if m in legal_set or m in seen:
            continue
        seen.add(m)
        if not rules.permits(pos, m):
            out.append(Blocked(m, *rules.why_not_permitted(pos, m)))
        elif rules.has_check:
            out.append(Blocked(m, "self-check", self_check_message(rules, pos, m)))
    for b in rules.relaxed_moves(pos, to_mask):
        if b.move not in legal_set and b.move not in seen:
            seen.add(b.move)
            out.append(b)
    return out


def match_blocked(
    rules: Variant, pos: Position, text: str, legal: Sequence[Move]
) -> Blocked | None:
    """The blocked move ``text`` names (read by the variant's own parser), if any."""
    # Only the moves the text can name are formatted (as ``Game.play`` reads a text): those
    # to a square it names, castling when written with O's or zeros, and actions without a
    # square when it names none. Every move a text can name is among them, so the reading
    # and its ambiguities are those of the whole list. They are generated only for those
    # squares when the text names some (and no castling).
    castles = "O" in text or "0" in text
    named = rules.named_squares(text)
    search = _searched(rules, pos, legal, named if named and not castles else ALL_SQUARES)
    blocked = [
        b
        for b in search.blocked
        if castles or (b.move.to >= 0 and named >> b.move.to & 1) or (b.move.to < 0 and not named)
    ]
    if not blocked:
        return None
    moves = [b.move for b in blocked]
    # Each text is disambiguated against the moves to its own square only (the legal
    # ones and the blocked ones), as ``Notation.format_moves`` does: all of them are in
    # the list whatever the text names, so a move's text is formatted once per position.
    known = search.texts
    if any(m not in known for m in moves):
        by_to: dict[int, list[Move]] = {}
        for m in (*legal, *moves):
            by_to.setdefault(m.to, []).append(m)
        for m in moves:
            if m not in known:
                known[m] = rules.san(pos, m, by_to[m.to])
    texts = [known[m] for m in moves]
    try:
        move = rules.parse(pos, text, moves, texts)
    except AmbiguousMove as err:
        choices = [m for m, t in zip(moves, texts, strict=True) if t in err.choices]
        if not choices:
            return None
        move = choices[0]
    except IllegalMove:
        return None
    return blocked[moves.index(move)]


# ----- 3. reading a text as piece, origin and destination -----------------------------------


@dataclass(frozen=True)
class Intent:
    """What a refused text seems to ask for."""

    letter: str  # piece letter, '' for a pawn
    frm: int  # an exact origin square (coordinates), else -1
    frm_file: str  # '' or the origin's file letter
    frm_rank: str  # '' or the origin's rank label
    to: int  # destination square, -1 when the name is not a square of this board
    to_name: str
    promo: str  # promotion letter, '' for none


_SUFFIXES = re.compile(r"\s*\{\s*T\d\s*\}|/T[a-h]?\d?%?\d*|\^[NESWnesw]|%\d*")
_COORD = re.compile(r"^([a-z])(\d+)[-x]?([a-z])(\d+)(?:=?([A-Za-z]))?$")
_SAN = re.compile(r"^([A-Z])?([a-z])?(\d+)?x?([a-z])(\d+)(?:=?([A-Z]))?$")


def read_intent(rules: Variant, text: str) -> Intent | None:
    """``text`` as piece, origin and destination, or None when it is not move-like."""
    norm = _SUFFIXES.sub("", rules.normalize(text)).strip()
    g = rules.geometry

    def square(file_: str, rank: str) -> int:
        name = f"{file_}{rank}"
        return g.parse_square(name) if g.is_square_name(name) else -1

    m = _COORD.match(norm)
    if m:
        f1, r1, f2, r2, promo = m.groups()
        frm = square(f1, r1)
        if frm < 0:
            return Intent("", -2, f1, r1, square(f2, r2), f"{f1}{r1}", "")
        return Intent("", frm, "", "", square(f2, r2), f"{f2}{r2}", (promo or "").upper())
    m = _SAN.match(norm)
    if m:
        letter, file_, rank, f2, r2, promo = m.groups()
        if file_ == "x" and "x" not in g.files:
            file_ = None  # the capture mark, not a file
        return Intent(
            letter or "", -1, file_ or "", rank or "", square(f2, r2), f"{f2}{r2}", promo or ""
        )
    return None


def explain_intent(
    rules: Variant, pos: Position, intent: Intent, legal: Sequence[Move]
) -> tuple[str, str, Move | None]:
    """Why no legal action does what ``intent`` asks: (cause, message, a move it resembles)."""
    color = pos.turn
    side = side_name(color)
    if intent.frm == -2 or intent.to < 0:
        name = intent.to_name if intent.to < 0 else f"{intent.frm_file}{intent.frm_rank}"
        nowhere = said(
            "there is no square {square} on the {variant} board",
            square=name,
            variant=word(rules.title),
        )
        return "no-square", nowhere, None
    to = intent.to
    near = Move(intent.frm if intent.frm >= 0 else -1, to)
    if intent.frm >= 0:
        p = pos.board[intent.frm]
        where = rules.name(intent.frm)
        if p is None:
            return "no-piece", said("there is no piece on {square}", square=where), near
        if p.color != color:
            return (
                "not-your-piece",
                said(
                    "the {piece} on {square} is {owner}'s; it is {side}'s turn",
                    piece=piece_name(rules, pos, intent.frm),
                    square=where,
                    owner=side_name(p.color),
                    side=side,
                ),
                near,
            )
        origins = [intent.frm]
        kind: str | None = p.kind
        kind_name = piece_name(rules, pos, intent.frm)
    else:
        kind = _kind_for(rules, intent.letter)
        if kind is None:
            letters = " ".join(dict.fromkeys(t.letter for t in rules.piece_types))
            if intent.letter:
                return (
                    "notation",
                    said(
                        "{variant} has no piece written {letter}: its pieces are {letters}",
                        variant=word(rules.title),
                        letter=intent.letter,
                        letters=letters,
                    ),
                    None,
                )
            return (
                "notation",
                said(
                    "{variant} pieces are always written with their letter ({letters})",
                    variant=word(rules.title),
                    letters=letters,
                ),
                None,
            )
        kind_name = noun(rules.types[kind].name)
        origins = _origins(rules, pos, color, kind, intent)
        if not origins:
            theirs = _origins(rules, pos, other(color), kind, intent)
            reach = [o for o in theirs if rules.reach_refusal(pos, o, to) is None]
            if reach:
                return (
                    "not-your-turn",
                    said(
                        "it is {side}'s turn; that {piece} is {owner}'s",
                        side=side,
                        piece=kind_name,
                        owner=side_name(other(color)),
                    ),
                    near,
                )
            return "no-piece", _has_none(side, kind_name, intent), near
    target = pos.board[to]
    if target is not None and target.color == color and intent.frm != to:
        return (
            "occupied",
            said(
                "your own {piece} stands on {square}",
                piece=piece_name(rules, pos, to),
                square=rules.name(to),
            ),
            near,
        )
    reasons = [(o, rules.reach_refusal(pos, o, to)) for o in origins]
    free = [o for o, r in reasons if r is None]
    if free:
        return _promotion_or_rest(rules, pos, intent, free, legal, kind_name)
    if intent.frm < 0 and all(r is not None and r[0] == "unreachable" for _, r in reasons):
        assert kind is not None
        theirs = _origins(rules, pos, other(color), kind, intent)
        if any(rules.reach_refusal(pos, o, to) is None for o in theirs):
            return (
                "not-your-turn",
                said(
                    "it is {side}'s turn; that {piece} move is {owner}'s",
                    side=side,
                    piece=kind_name,
                    owner=side_name(other(color)),
                ),
                near,
            )
    found = [(o, r) for o, r in reasons if r is not None]
    found.sort(key=lambda item: PRIORITY.index(item[1][0]) if item[1][0] in PRIORITY else 99)
    origin, (cause, why) = found[0]
    message: str = why
    if cause == "unreachable" and len(origins) > 1:
        message = said(
            "no {piece} of yours can reach {square}: {why}",
            piece=kind_name,
            square=rules.name(to),
            why=_after_colon(why),
        )
    return cause, message, Move(origin, to)


def _after_colon(message: str) -> str:
    """What an 'unreachable' message says after its colon (the piece's movement), or the
    whole message when it has none."""
    if isinstance(message, Said) and message.msgid == CANNOT_REACH_HOW:
        return said("the {piece} {how}", piece=message.params["piece"], how=message.params["how"])
    return message.split(": ", 1)[-1]


def _promotion_or_rest(
    rules: Variant,
    pos: Position,
    intent: Intent,
    origins: Sequence[int],
    legal: Sequence[Move],
    kind_name: str,
) -> tuple[str, str, Move | None]:
    """The piece can get there: the remaining question is usually promotion."""
    to = intent.to
    candidates = [m for m in rules.candidate_moves(pos) if m.frm in origins and m.to == to]
    near = candidates[0] if candidates else Move(origins[0], to)
    promos = sorted({m.promo for m in candidates if m.promo})
    letters = [rules.types[k].letter for k in promos]
    plain = [m for m in candidates if not m.promo]
    if not intent.promo and promos and not plain:
        rank = rules.geometry.rank_label(to)
        return (
            "promotion-needed",
            said(
                "a {piece} reaching rank {rank} must promote: add {choices}",
                piece=kind_name,
                rank=rank,
                choices=either((f"={x}" for x in letters), "or"),
            ),
            near,
        )
    if intent.promo and not promos:
        return (
            "promotion-not-allowed",
            said(
                "the {piece} does not promote on {square}: only a piece reaching the last rank "
                "promotes",
                piece=kind_name,
                square=rules.name(to),
            ),
            near,
        )
    if intent.promo and intent.promo not in letters:
        names = [word(rules.types[k].name) for k in promos]
        return (
            "promotion-choice",
            said(
                "a {piece} promotes here to {choices}, not to {letter}",
                piece=kind_name,
                choices=either(names),
                letter=intent.promo,
            ),
            near,
        )
    return "not-legal", said("that is not a legal action now"), near


def _kind_for(rules: Variant, letter: str) -> str | None:
    if letter:
        t = rules.by_letter.get(letter)
        return t.id if t is not None else None
    pawns = [t.id for t in rules.piece_types if t.is_pawn]
    return pawns[0] if pawns else None


def _origins(rules: Variant, pos: Position, color: int, kind: str, intent: Intent) -> list[int]:
    g = rules.geometry
    out = []
    for sq, p in enumerate(pos.board):
        if p is None or p.color != color or p.kind != kind:
            continue
        if intent.frm_file and g.file_letter(sq) != intent.frm_file:
            continue
        if intent.frm_rank and str(g.rank_label(sq)) != intent.frm_rank:
            continue
        out.append(sq)
    if not intent.letter and not intent.frm_file:
        # A bare pawn move names its destination: pawns of that file first.
        same_file = [sq for sq in out if g.file_of(sq) == g.file_of(intent.to)]
        return same_file or out
    return out


def _has_none(side: str, piece: str, intent: Intent) -> str:
    """'White has no Knight', with where the text looked for it."""
    if intent.frm_file and intent.frm_rank:
        square = f"{intent.frm_file}{intent.frm_rank}"
        return said("{side} has no {piece} on {square}", side=side, piece=piece, square=square)
    if intent.frm_file:
        return said(
            "{side} has no {piece} on the {file}-file", side=side, piece=piece, file=intent.frm_file
        )
    if intent.frm_rank:
        return said(
            "{side} has no {piece} on rank {rank}", side=side, piece=piece, rank=intent.frm_rank
        )
    return said("{side} has no {piece}", side=side, piece=piece)


# ----- the closest legal actions ------------------------------------------------------------


def closest(
    rules: Variant,
    pos: Position,
    text: str,
    legal: Sequence[Move],
    texts: Sequence[str],
    near: Move | None = None,
    n: int = CLOSEST,
) -> tuple[str, ...]:
    """Up to ``n`` legal actions closest to ``text``: by spelling, then the same
    piece (origin) and the same destination as the move it resembles.

    A spelling score is ``difflib``'s ratio. Its bound from the shared letters (the ratio
    ``quick_ratio`` gives, 2 x common letters / both lengths) is never below it, so a text
    whose bound (with its piece and square bonus) is below the ``n``-th best score so far
    cannot be among the closest, and its exact ratio is skipped: the answer is the one the
    whole list's ratios give."""
    if not texts or n <= 0:
        return ()
    norm = rules.normalize(text).lower()
    letters = Counter(norm)
    matcher = SequenceMatcher(None, norm, "")
    candidates = []
    for i, (m, t) in enumerate(zip(legal, texts, strict=True)):
        other, counts = _normalized(rules, t)
        bonus: tuple[float, ...] = ()
        if near is not None:
            bonus = (
                *((0.6,) if near.frm >= 0 and m.frm == near.frm else ()),
                *((0.5,) if near.to >= 0 and m.to == near.to else ()),
                *((0.3,) if near.flag and m.flag == near.flag else ()),
            )
        common = 0
        for letter, count in counts:
            have = letters.get(letter)
            if have:
                common += have if have < count else count
        total = len(norm) + len(other)
        bound = _plus(2.0 * common / total if total else 1.0, bonus)
        candidates.append((-bound, i, other, bonus, t))
    candidates.sort()
    best: list[tuple[float, int, str]] = []  # (-score, index, text), the n best so far
    for negative_bound, i, other, bonus, t in candidates:
        if len(best) == n and -negative_bound < -best[-1][0]:
            break  # this bound, and every later one, is below the n-th best score
        matcher.set_seq2(other)
        best.append((-_plus(matcher.ratio(), bonus), i, t))
        best.sort()
        del best[n:]
    return tuple(t for _, _, t in best)


def _plus(score: float, bonus: tuple[float, ...]) -> float:
    """``score`` with each bonus added in turn (in the same order for a bound and a score,
    so that a bound is never below its score, to the last bit)."""
    for extra in bonus:
        score += extra
    return score


@functools.lru_cache(maxsize=16384)
def _normalized(rules: Variant, text: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """A legal action's text as ``closest`` compares it, and its letters counted (the same
    texts recur at every refusal in a game)."""
    norm = rules.normalize(text).lower()
    return norm, tuple(Counter(norm).items())
