"""The console's ``moves`` line read back as actions: the actions are printed one after
another with spaces, and a teleport's target is part of its action ("Nfz4 {T3}"), so a
word in braces belongs to the action before it."""

from __future__ import annotations


def listed_actions(line: str) -> list[str]:
    actions: list[str] = []
    for word in line.split():
        if word.startswith("{") and actions:
            actions[-1] += " " + word
        else:
            actions.append(word)
    return actions
