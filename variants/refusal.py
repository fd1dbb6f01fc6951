"""Values for explanations: why a text is refused (``Refusal``) and which rule
removed a would-be move (``Blocked``). See ``explain.py``."""

from __future__ import annotations

from dataclasses import dataclass

from .position import Move

# Every cause code an explanation can carry, with what it means. Stable: front ends
# may branch on them. The first group applies to every variant.
CAUSES: dict[str, str] = {
    "game-over": "the game has ended",
    "notation": "not an action in this variant's notation",
    "ambiguous": "the text fits more than one legal action",
    "no-square": "a square that is not on this board",
    "no-piece": "no piece there, or none of that kind",
    "not-your-piece": "the piece named belongs to the opponent",
    "not-your-turn": "that move belongs to the side not to move",
    "unreachable": "the piece cannot move that way",
    "blocked": "a piece stands in the way",
    "occupied": "one of your own pieces stands on the square",
    "capture-only": "the piece goes there only to capture",
    "no-capture": "the piece does not capture that way",
    "promotion-needed": "the move must name a promotion",
    "promotion-not-allowed": "the move does not promote",
    "promotion-choice": "that promotion is not allowed",
    "not-legal": "no more specific rule was found",
    # check and castling (Tquarchess, Stone Garden, Jepps Random; castling in Guardener too)
    "self-check": "the move would leave or put your King in check",
    "castling-rights": "the King or that Rook has moved",
    "castling-check": "castling out of, through or into check",
    "no-castling": "the variant has no castling",
    # Guardener
    "dice": "the dice showing do not allow it (Guardener, Jepps Random setup)",
    "reroll": "a re-roll needs a double",
    "pass": "the pass is not allowed now, or spent",
    "terrace": "a teleport to the wrong terrace",
    "resurrection": "a resurrection not allowed now (Guardener, Tquarchess)",
    "double-step": "the pawn has moved before, so it may not step two squares",
    # Tquarchess
    "teleport-timing": "a teleport only right after the enemy Tquarc moved",
    "teleport-square": "a teleport only to an empty square of its colour in its Tquad",
    "entry": "the Tquarc cannot enter there",
    "king2": "the two-square King is not available",
    "roll": "no entry-attempt roll now",
    # King's Guard
    "needs-assist": "a pawn captures only with a friendly non-pawn attacking the square",
    "pawns-only-capture": "only pawns capture",
    # Stone Garden
    "raven-cooldown": "this Raven turned too recently",
    "raven-early": "no Raven turns in a side's first five moves",
    "raven-turn": "not a Raven turn of the right shape",
    # Jepps Random
    "setup-square": "the placement is not on the next square to fill",
    "setup-stock": "no piece of that kind is left to place",
    "bishop-colour": "the Bishops must end on opposite colours",
    "setup-phase": "an action of another step of the setup",
    "mediator": "not the answer the mediator dice give",
    "setup-over": "a setup action after the setup",
    "relocation": "the King may not relocate there now",
}


@dataclass(frozen=True)
class Refusal:
    """Why a text is not a legal action now (contract C2)."""

    cause: str  # stable code, e.g. 'notation', 'dice', 'self-check', 'needs-assist'
    message: str  # one sentence naming the rule
    closest: tuple[str, ...]  # up to 5 legal actions closest to the text
    text: str = ""  # the text refused, as typed (stripped)

    def __str__(self) -> str:
        head = self.message
        if self.text and self.cause != "game-over":
            shown = self.text if len(self.text) <= 40 else self.text[:37] + "..."
            head += f" ({shown!r})"
        if self.closest:
            head += "; closest legal: " + ", ".join(self.closest)
        return head


@dataclass(frozen=True)
class Blocked:
    """A move the pieces could make but one rule takes away, with that rule."""

    move: Move
    cause: str
    message: str
