"""Read a shape_constraints string into typed Scenarios, or into every error it contains.

The lark grammar (`grammar.lark`) accepts any string and cuts it into typed tokens; this
module walks the tree once, builds the Scenario values and checks everything the grammar
leaves open on purpose (which token may stand where, bounds, duplicates), so that all the
mistakes of a string are reported in one pass, each at its place.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from . import messages
from .deck import SUIT_LETTERS
from .errors import DslError, ErrorCode, InvalidDsl
from .keys import FIT, KEY_BY_NAME, KEY_NAMES, WILDCARD_KEYS, Key, Measure
from .limits import LIMITS, Limits, cap_errors, check, too_many_digits
from .model import Fit, Pair, Position, Range, Role, Scenario, ShapeClass, Suit, SuitClass
# The parser generated from `grammar_source` by scripts/generate_parser.py:
# lark's classes and tables, without importing lark.
from .generated_parser import Lark, LarkError, Lark_StandAlone, Token, Tree

ROLES = tuple(role.value for role in Role)
_PLAIN_SPACE = frozenset(" \t\r\n")


@functools.cache
def _parser() -> Lark:
    # The tables are in the module; this builds the lexers' regular expressions (about 3 ms).
    return Lark_StandAlone()


@dataclass(frozen=True)
class ParseResult:
    """The scenarios of a valid string, or the errors of an invalid one (never both)."""

    raw: str
    scenarios: tuple[Scenario, ...]
    errors: tuple[DslError, ...]

    @property
    def valid(self) -> bool:
        return not self.errors


def parse(raw: str, limits: Limits = LIMITS) -> ParseResult:
    """Parse `raw` exactly as given; offsets in errors index into it. Blank means no scenarios.
    A string past one of `limits` gets that one error, before lark or the reader run."""
    if not raw.strip(" \t\r\n"):
        return ParseResult(raw, (), ())
    past = check(raw, limits)
    if past is not None:
        return ParseResult(raw, (), (past,))
    try:
        tree = _parser().parse(raw)
    except LarkError as exc:  # the grammar is total; keep a readable answer if it is not
        return ParseResult(raw, (), (_syntax_error(raw, exc),))
    errors: list[DslError] = []
    scenarios: list[Scenario] = []
    children = tree.children
    scenario_trees = [c for c in children if isinstance(c, Tree)]
    separators = [c for c in children if isinstance(c, Token)]
    for index, scenario_tree in enumerate(scenario_trees):
        before = separators[index - 1] if index > 0 else None
        after = separators[index] if index < len(separators) else None
        builder = _ScenarioReader(raw, index + 1, errors, anchor=before or after, limits=limits)
        scenarios.append(builder.read(scenario_tree))
    if errors:
        errors.sort(key=lambda e: e.offset)  # stable: same place keeps discovery order
        return ParseResult(raw, (), cap_errors(raw, errors, limits))
    return ParseResult(raw, tuple(scenarios), ())


def parse_scenarios(raw: str) -> tuple[Scenario, ...]:
    """The scenarios of `raw`; raises InvalidDsl (with every error) if it has any."""
    result = parse(raw)
    if result.errors:
        raise InvalidDsl(raw, result.errors)
    return result.scenarios


def _syntax_error(raw: str, exc: LarkError) -> DslError:
    offset = getattr(exc, "pos_in_stream", None) or 0
    line = getattr(exc, "line", 1) or 1
    column = getattr(exc, "column", 1) or 1
    return DslError(
        ErrorCode.SYNTAX_ERROR,
        messages.render(ErrorCode.SYNTAX_ERROR, detail=str(exc).splitlines()[0]),
        scenario=raw.count("//", 0, offset) + 1,
        offset=offset,
        length=1,
        line=line,
        column=column,
        token=raw[offset : offset + 1],
    )


def _close(word: str, choices: tuple[str, ...]) -> str | None:
    for choice in choices:
        if choice.lower() == word.lower():
            return choice
    import difflib  # only for a mistake (3 ms of every start otherwise)

    found = difflib.get_close_matches(word, choices, n=1, cutoff=0.75)
    return found[0] if found else None


@dataclass
class _PositionDraft:
    """Constraints gathered for one position while its tokens are read.

    `values` holds each valid value under the Position field its key fills (a per-suit key's
    under its suit), so the table decides where a key goes and a new key needs nothing here.
    """

    role: Role | None  # None: the role word was wrong; constraints are still checked
    keep: bool  # False for an unknown or duplicate role: checked, never returned
    values: dict[str, Range | ShapeClass | dict[Suit, Range]] = field(default_factory=dict)
    key_order: list[str] = field(default_factory=list)
    first_token: dict[str, Token] = field(default_factory=dict)

    def take(self, key: Key, value: Range | ShapeClass) -> None:
        """Record a position key's valid value (fits are the scenario's, not taken here)."""
        self.key_order.append(key.name)
        if key.suit is None:
            self.values[key.field] = value  # type: ignore[index]
        else:
            self.values.setdefault(key.field, {})[key.suit] = value  # type: ignore[index, arg-type]

    @property
    def named_suits(self) -> set[Suit]:
        """The suits a per-suit key gave a valid value: never a wildcard candidate."""
        return {suit for value in self.values.values() if isinstance(value, dict) for suit in value}

    def to_position(self) -> Position:
        assert self.role is not None
        return Position(role=self.role, key_order=tuple(self.key_order), **self.values)  # type: ignore[arg-type]


class _ScenarioReader:
    def __init__(self, raw: str, number: int, errors: list[DslError], anchor: Token | None, limits: Limits):
        self.raw = raw
        self.limits = limits
        self.number = number
        self.errors = errors
        self.anchor = anchor
        self.label = ""
        self.label_token: Token | None = None
        self.positions: list[Position] = []
        self.fits: list[Fit] = []
        self.roles_seen: set[Role] = set()

    # -- reporting -------------------------------------------------------------------------

    def error(self, code: ErrorCode, token: Token, hint: str | None = None, length: int | None = None, **fields: object) -> None:
        text = str(token) if length is None else self.raw[token.start_pos : token.start_pos + length]
        self.errors.append(
            DslError(
                code=code,
                message=messages.render(code, scenario=self.number, token=text, **fields),
                scenario=self.number,
                offset=token.start_pos,
                length=len(text),
                line=token.line,
                column=token.column,
                token=text,
                hint=hint,
            )
        )

    # -- structure -------------------------------------------------------------------------

    def read(self, tree: Tree) -> Scenario:
        segments: list[Tree] = []
        separators: list[Token] = []
        for child in tree.children:
            if isinstance(child, Tree):
                segments.append(child)
            elif child.type == "LABEL":
                self.label_token = child
                self.label = child[:-1].strip(" \t\r\n")
            else:
                separators.append(child)
        if all(not segment.children for segment in segments):
            # Not blank (parse() returned early for that), so one of these exists.
            anchor = self.label_token or self.anchor or separators[0]
            self.error(ErrorCode.EMPTY_SCENARIO, anchor, hint=self._label_hint())
            return Scenario()
        for index, segment in enumerate(segments):
            if not segment.children:
                sep = separators[index] if index < len(separators) else separators[index - 1]
                self.error(ErrorCode.EMPTY_POSITION, sep)
                continue
            self.read_segment(segment, first=index == 0)
        return Scenario(label=self.label, positions=tuple(self.positions), fits=tuple(self.fits))

    def _label_hint(self) -> str | None:
        """A label that ends in a key ("opener H") was almost surely "H: 5+" with a stray space."""
        if self.label_token is None:
            return None
        words = self.label.split()
        if words and words[-1] in KEY_BY_NAME:
            return messages.hint("label-colon", label=self.label)
        return None

    def read_segment(self, segment: Tree, first: bool) -> None:
        draft: _PositionDraft | None = None
        items = segment.children
        skip_next_word = False
        scenario_fit: Tree | None = None
        for i, item in enumerate(items):
            kind = item.data
            token: Token = item.children[0]
            if kind == "role":
                if draft is not None:
                    self.error(ErrorCode.MISSING_SEPARATOR, token)
                    self.finish(draft)
                draft = self.open_position(token)
            elif kind == "word":
                if skip_next_word:
                    skip_next_word = False
                    continue
                if draft is None:
                    draft = _PositionDraft(role=None, keep=False)
                    suggestion = _close(token, ROLES)
                    hint = self._label_hint() if first else None
                    if hint is None and suggestion is not None:
                        hint = messages.hint("did-you-mean", suggestion=suggestion)
                    self.error(ErrorCode.UNKNOWN_ROLE, token, hint=hint or self._odd_space(token))
                else:
                    suggestion = _close(token, ROLES)
                    hint = messages.hint("did-you-mean", suggestion=suggestion) if suggestion else None
                    self.error(ErrorCode.NOT_KEY_VALUE, token, hint=hint or self._odd_space(token))
            elif kind == "bare_key":
                key = token[:-1]
                nxt = items[i + 1] if i + 1 < len(items) else None
                if key in KEY_BY_NAME:
                    hint = None
                    if nxt is not None and nxt.data == "word" and self._only_spaces_between(token, nxt.children[0]):
                        hint = messages.hint("remove-space", suggestion=f"{token}{nxt.children[0]}")
                        skip_next_word = True
                    example = KEY_BY_NAME[key].measure.example
                    self.error(ErrorCode.MISSING_VALUE, token, hint=hint, key=key, example=example)
                else:
                    self.unknown_key(token, key, value="")
            elif draft is None and not (first and kind == "fit"):
                length = self._item_length(item)
                hint = self._odd_space(self.raw[token.start_pos : token.start_pos + length])
                self.error(ErrorCode.CONSTRAINT_BEFORE_ROLE, token, hint=hint, length=length)
            else:
                if draft is None and scenario_fit is None:
                    scenario_fit = item
                self.read_constraint(item, draft)
        if draft is not None:
            self.finish(draft)
        elif scenario_fit is not None:
            # Fits at scenario level must be followed by the first position itself.
            hint = messages.hint("fit-scenario-level")
            self.error(ErrorCode.CONSTRAINT_BEFORE_ROLE, scenario_fit.children[0], hint=hint, length=self._item_length(scenario_fit))

    def open_position(self, token: Token) -> _PositionDraft:
        role = Role(str(token))
        if role in self.roles_seen:
            self.error(ErrorCode.DUPLICATE_ROLE, token, role=role.value)
            return _PositionDraft(role=role, keep=False)
        self.roles_seen.add(role)
        return _PositionDraft(role=role, keep=True)

    def finish(self, draft: _PositionDraft) -> None:
        if len(draft.named_suits) == 4:
            for wildcard in WILDCARD_KEYS:
                token = draft.first_token.get(wildcard.name)
                if token is not None:
                    self.error(ErrorCode.WILDCARD_WITHOUT_CANDIDATE, token, key=wildcard.name)
                    break
        if draft.keep:
            self.positions.append(draft.to_position())

    # -- constraints -----------------------------------------------------------------------

    def read_constraint(self, item: Tree, draft: _PositionDraft | None) -> None:
        key_token: Token = item.children[0]
        value: Token = item.children[1]
        name = key_token[:-1]
        if item.data == "other":
            self.unknown_key(key_token, name, value=str(value))
            return
        key = KEY_BY_NAME[name]
        if draft is not None and not key.repeatable:
            if name in draft.first_token:
                self.error(ErrorCode.DUPLICATE_KEY, key_token, length=self._item_length(item), key=name)
                return
            draft.first_token[name] = key_token
        if item.data == "fit":
            fit = self.read_fit(value, draft)
            if fit is not None:
                if draft is not None:
                    draft.key_order.append(name)
                if draft is None or draft.keep:
                    self.fits.append(fit)
            return
        if item.data == "shape":
            if value.type != "SHAPE_NAME":
                suggestion = _close(value, tuple(s.value for s in ShapeClass))
                hint = messages.hint("did-you-mean", suggestion=f"shape:{suggestion}") if suggestion else None
                self.error(ErrorCode.UNKNOWN_SHAPE, value, hint=hint)
            elif draft is not None:
                draft.take(key, ShapeClass(str(value)))
            return
        rng = self.read_range(value, key.measure)
        if rng is None or draft is None:
            return
        draft.take(key, rng)

    def read_range(self, value: Token, measure: Measure) -> Range | None:
        if value.type != "RANGE":
            self.error(ErrorCode.BAD_RANGE, value, hint=self._odd_space(value))
            return None
        text = str(value)
        if too_many_digits(text, self.limits):
            self.too_long_number(value)
            return None
        if text.endswith("+"):
            low, high = int(text[:-1]), None
        elif "-" in text:
            first, _, second = text.partition("-")
            low, high = int(first), int(second)
        else:
            low = high = int(text)
        limit = measure.limit
        if low > limit or (high is not None and high > limit):
            self.error(ErrorCode.RANGE_OUT_OF_BOUNDS, value, what=messages.measure(measure.id), limit=limit)
            return None
        if high is not None and low > high:
            hint = messages.hint("swap-range", suggestion=f"{high}-{low}")
            self.error(ErrorCode.MIN_GREATER_THAN_MAX, value, hint=hint, min=low, max=high)
            return None
        return Range(low, high)

    def read_fit(self, value: Token, draft: _PositionDraft | None) -> Fit | None:
        text = str(value)
        if value.type != "FIT_SPEC":
            self.error(ErrorCode.BAD_FIT, value, hint=self._fit_hint(text))
            return None
        if too_many_digits(text, self.limits):
            self.too_long_number(value)
            return None
        head = text[0]
        minimum = int(text[1:-1] if not head.isdigit() else text[:-1])
        if minimum > FIT.limit:
            self.error(ErrorCode.RANGE_OUT_OF_BOUNDS, value, what=messages.measure(FIT.id), limit=FIT.limit)
            return None
        suit = Suit(head) if head in SUIT_LETTERS else None
        suit_class = SuitClass.MAJOR if head == "M" else SuitClass.MINOR if head == "m" else None
        role = draft.role if draft is not None else None
        pair = role.pair if role is not None else Pair.DECLARER
        return Fit(min=minimum, suit=suit, suit_class=suit_class, pair=pair, declared_in=role)

    def too_long_number(self, value: Token) -> None:
        # int() of it would be slow, or refused past CPython's 4,300 digits: never called.
        text = str(value)
        shown = text if len(text) <= 24 else text[:20] + "..."
        detail = messages.limit_detail("digits", token=shown, limit=self.limits.digits)
        self.error(ErrorCode.LIMIT_EXCEEDED, value, detail=detail)

    def _fit_hint(self, text: str) -> str | None:
        candidates = [text + "+", text.upper(), text.upper() + "+", text.rstrip("-") + "+"]
        if text[:1] in "hsdc":
            candidates[1:1] = [text[0].upper() + text[1:], text[0].upper() + text[1:] + "+"]
        for candidate in candidates:
            if _is_fit_value(candidate):
                return messages.hint("did-you-mean", suggestion=f"fit:{candidate}")
        return self._odd_space(text)

    def unknown_key(self, key_token: Token, key: str, value: str) -> None:
        if key == "":
            self.error(ErrorCode.NOT_KEY_VALUE, key_token, length=1 + len(value))
            return
        suggestion = _close(key, KEY_NAMES)
        hint = messages.hint("did-you-mean", suggestion=f"{suggestion}:{value}") if suggestion else self._odd_space(key)
        self.error(ErrorCode.UNKNOWN_KEY, key_token, hint=hint, length=len(key_token) + len(value), key=key)

    # -- small helpers ---------------------------------------------------------------------

    def _only_spaces_between(self, left: Token, right: Token) -> bool:
        gap = self.raw[left.end_pos : right.start_pos]
        return bool(gap) and set(gap) <= {" ", "\t"}

    @staticmethod
    def _item_length(item: Tree) -> int:
        first, last = item.children[0], item.children[-1]
        return last.end_pos - first.start_pos

    @staticmethod
    def _odd_space(text: str) -> str | None:
        if any(ch.isspace() and ch not in _PLAIN_SPACE for ch in text):
            return messages.hint("odd-space", token=text)
        return None


def _is_fit_value(text: str) -> bool:
    """Whether `text` is a valid fit value as the grammar reads it (for hints; no recursion into hints)."""
    try:
        tree = _parser().parse(f"opener fit:{text}")
    except LarkError:
        return False
    specs = [t for t in tokens(tree) if t.type == "FIT_SPEC"]
    return specs == [text] and not too_many_digits(text) and int(text.lstrip(SUIT_LETTERS + "Mm")[:-1]) <= FIT.limit


def tokens(tree: Tree) -> list[Token]:
    """The tree's tokens in the string's order (lark's `scan_values`, which its standalone parser lacks)."""
    return [leaf for child in tree.children for leaf in (tokens(child) if isinstance(child, Tree) else (child,))]
