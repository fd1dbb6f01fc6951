"""What each variant says about a position, in the players' words: the facts of
the turn for ``status.describe`` and the rules behind refusals for ``explain``.

One module per variant; the variant's hook methods delegate to these functions,
so the rules modules stay about the rules.
"""
