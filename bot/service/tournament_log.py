"""A tournament's log details, stored as a code and values and said in the reader's
language (issue 27).

Each entry of ``tournament_log`` (who did what, and when) may carry a detail. The service's
own details (the settings a tournament was made with, a round's pairing, the winner, why
the scheduler cancelled it) are stored as JSON, a code and its values (``detail_record``),
and said at display time (``detail_words``): ``/tournament info`` shows the latest entries
in the reader's language, the console's ``tournament show`` in English. What a moderator
typed (a reason to remove a player or to cancel) is stored as typed, and shown so; so are
the English details of rows stored before the codes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.i18n import said, said_n
from bot.service.clock import days_text
from bot.service.live import variant_title
from storage.tournaments import TournamentLogRow

Values = Mapping[str, Any]

# The rules the pairing gave way on (``bot.tournament.swiss``' names), in words.
COMPROMISE_WORDS = {
    "repeat": said("a repeated pairing"),
    "second bye": said("a second bye"),
    "colour": said("the colours"),
}


def _format(value: object) -> str:
    return said("Swiss") if value == "swiss" else said("Round robin")


def _pairing(v: Values) -> str:
    bye = v.get("bye")
    player = "<@" + str(bye) + ">"  # a mention
    rules = [COMPROMISE_WORDS.get(str(r), str(r)) for r in v.get("gave_way") or ()]
    return said(
        "round {round}: {boards}{bye}{gave_way}",
        round=v["round"],
        boards=said_n("{n} board", "{n} boards", v["boards"]),
        bye=said(", bye {player}", player=player) if bye is not None else "",
        gave_way=said("; gave way on {rules}", rules=_listed(rules)) if rules else "",
    )


def _listed(items: Sequence[str]) -> str:
    """Words one after another, each said in the reader's language: "a, b, c"."""
    if len(items) == 1:
        return items[0]
    return said("{first}, {rest}", first=items[0], rest=_listed(items[1:]))


DETAIL_WORDS: dict[str, Callable[[Values], str]] = {
    "create": lambda v: said(
        "{format} of {variant}, {rounds}, {time}, {rated}, starts {start}",
        format=_format(v["format"]),
        variant=variant_title(str(v["variant"])),
        rounds=said_n("{n} round", "{n} rounds", v["rounds"]),
        time=days_text(v["days"]) if v["days"] else said("0 days per move"),
        rated=said("rated") if v["rated"] else said("unrated"),
        start=v["start"],
    ),
    "start": lambda v: said(
        "{players}, {rounds}",
        players=said_n("{n} player", "{n} players", v["players"]),
        rounds=said_n("{n} round", "{n} rounds", v["rounds"]),
    ),
    "pair": _pairing,
    "timeouts": lambda v: said_n("lost {n} game on time", "lost {n} games on time", v["n"]),
    "finish": lambda v: (
        said("won by {player} ({points})", player=v["player"], points=format(v["points"], "g"))
        if v.get("player") is not None
        else said("nobody won")
    ),
    "too_few": lambda v: said("fewer than two players had joined when it was due to start"),
    "moderator": lambda v: said("cancelled by a moderator"),
}

# The log's actions in words (``tournament_log.action``).
ACTION_WORDS = {
    "create": said("created"),
    "join": said("joined"),
    "leave": said("left"),
    "start": said("started"),
    "pair": said("paired"),
    "withdraw": said("withdrew"),
    "remove": said("removed"),
    "cancel": said("called off"),
    "finish": said("finished"),
}


def detail_record(code: str, **values: Any) -> str:
    """A detail as the log keeps it: its code and values, as JSON."""
    if code not in DETAIL_WORDS or "code" in values:
        raise ValueError(f"unknown tournament log detail {code!r}, or a value named code")
    return json.dumps({"code": code, **values}, sort_keys=True, ensure_ascii=False)


def detail_words(detail: str) -> str:
    """A stored detail in words (``Said``, for the reader's language); typed text, the
    English of an older row, or a record this version cannot read: as stored."""
    if not detail.startswith("{"):
        return detail
    try:
        data = json.loads(detail)
    except ValueError:
        return detail
    words = DETAIL_WORDS.get(str(data.get("code"))) if isinstance(data, dict) else None
    if words is None:
        return detail
    try:
        return words(data)
    except (KeyError, TypeError, ValueError):  # a value missing or malformed: as stored
        return detail


def log_line(entry: TournamentLogRow, label: Callable[[int], str]) -> str:
    """One log entry as a line: when, what, whom, and its detail."""
    when = entry.created_at[:16].replace("T", " ")
    action = ACTION_WORDS.get(entry.action, entry.action)
    detail = detail_words(entry.detail)
    if entry.player_id is not None:
        player = label(entry.player_id)
        if detail:
            return said(
                "{when} · {action} {player}: {detail}",
                when=when,
                action=action,
                player=player,
                detail=detail,
            )
        return said("{when} · {action} {player}", when=when, action=action, player=player)
    if detail:
        return said("{when} · {action}: {detail}", when=when, action=action, detail=detail)
    return said("{when} · {action}", when=when, action=action)


def latest_lines(
    entries: Sequence[TournamentLogRow], label: Callable[[int], str], count: int
) -> tuple[str, ...]:
    """The last ``count`` entries as lines, the oldest first."""
    return tuple(log_line(e, label) for e in entries[-count:]) if count > 0 else ()
