"""The grammar the DSL parser is made from: `grammar.lark` with its key terminals written
from `keys.KEYS`, and the parser's options. `scripts/generate_parser.py` turns them into
`generated_parser.py` (which holds both, so a test sees when it is out of date); nothing
reads them at run time.
"""

from __future__ import annotations

from importlib import resources

from .keys import terminals

#: Where grammar.lark takes its key terminals, and their priority: that of the value forms,
#: above the catch-alls, so a known key is never read as OTHER_KEY.
_KEY_TERMINALS_LINE = "// {key terminals}"
_KEY_PRIORITY = 3

#: The parser's options, as `Lark(...)` takes them.
PARSER_OPTIONS = {"parser": "lalr", "lexer": "contextual"}


def grammar_text() -> str:
    """grammar.lark with its key terminals written from `keys.KEYS`."""
    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    if grammar.count(_KEY_TERMINALS_LINE) != 1:
        raise AssertionError(f"grammar.lark needs one {_KEY_TERMINALS_LINE!r} line")
    lines = [
        f"{terminal}.{_KEY_PRIORITY}: " + " | ".join(f'"{token}"' for token in tokens)
        for terminal, tokens in terminals().items()
    ]
    return grammar.replace(_KEY_TERMINALS_LINE, "\n".join(lines))
