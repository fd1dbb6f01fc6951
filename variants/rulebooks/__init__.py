"""The rules text of each variant, one module per variant (see ``variants/rulebook.py``).

Each module gives ``INVENTOR``, ``SOURCE``, ``TAGLINE``, ``sections(rules)`` (the board and setup
first, then the dice, special actions, end and notation) and ``piece_notes(rules)``
(what the pieces table leaves out). Numbers and readings come from the variant
module's constants, so the text follows the code.
"""
