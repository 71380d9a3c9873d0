"""Double-dummy tables and par results, by Bo Haglund's DDS (through endplay), keyed by role.

A deal here is a PBN deal string with the opener North (`N:` opener, opp1, responder, opp2),
as the mirror publishes it; a table says how many tricks each role takes as declarer in each
strain, so no reader needs to know the rotation. A table does not depend on the board (it is
kept in the state store per deal); par does, through the vulnerability, and is cheap to work
out from the table when a board's files are written.

- `solve` runs DDS's multi-deal call (`CalcAllTables`, threads over deals and strains, so
  both cores work) on up to `BATCH_LIMIT` deals at a time; a deal DDS fails on, or whose
  table breaks what every table obeys (`DDTable`: never published, never stored), comes back
  as `None` and the others are kept; `solved` streams batches through one DDS thread, a batch
  ahead of its reader (`deals --dd`).
- `par` is DDS's dealer par of a table for a board: the opener deals (SEMANTICS 3), the
  score is written from the opener's side, the contracts name their declarer's role.
- `pbn_tags` writes PBN's `OptimumScore`, `ParContract` and `OptimumResultTable` in the
  board's orientation; `summary` is what a scenario's deals make, for the convention page.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from bridgeshape_mirror.dsl.deck import HAND_CARDS, RANK_LETTERS, ROLE_SEAT, SEAT_LETTERS, SUIT_LETTERS
from bridgeshape_mirror.dsl.model import Pair, Role

from .boards.board import VULNERABILITY_CYCLE, Board
from .boards.pbn import PbnTag, parse_deal
from .dds_memory import DDS_MEMORY_MB_LEAST, DDS_TABLE_MB, TablesUnsized, map_large_blocks, size_own, size_tables

#: The strains, in the order of the JSON and of PBN's result table: notrump, then the suits.
STRAINS: tuple[str, ...] = ("NT",) + tuple(SUIT_LETTERS)
ROLES: tuple[Role, ...] = tuple(Role)
#: DDS solves at most 200 (deal, strain) pairs in one call: 40 full tables.
BATCH_LIMIT = 40
#: Tricks a game needs in each strain (3NT, 4 of a major, 5 of a minor), and a small slam.
GAME_TRICKS: dict[str, int] = {"NT": 9, "S": 10, "H": 10, "D": 11, "C": 11}
SLAM_TRICKS = 12
_memory_bound_mb: int | None = None  # set by bound_memory; None: DDS_TABLE_MB a core

# DDS's own numbering: strains S H D C NT in its tables, NT S H D C in par contracts.
_DDS_TABLE_STRAIN = {strain: (4 if strain == "NT" else SUIT_LETTERS.index(strain)) for strain in STRAINS}
_DDS_PAR_STRAIN: tuple[str, ...] = STRAINS
# DDS's vulnerability codes: none, both, NS only, EW only.
_DDS_VUL = {(False, False): 0, (True, True): 1, (True, False): 2, (False, True): 3}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")  # int(, 16) also takes "_", "+" and spaces
_RANK_BIT = {letter: 1 << (14 - i) for i, letter in enumerate(RANK_LETTERS)}  # A = 0x4000 .. 2 = 0x4


class DoubleDummyError(RuntimeError):
    """DDS refused a deal or a table (it should not happen with legal deals)."""


@dataclass(frozen=True)
class DDTable:
    """Tricks as declarer: `tricks[r * 5 + s]` for role `ROLES[r]` and strain `STRAINS[s]`."""

    tricks: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.tricks) != len(ROLES) * len(STRAINS) or not all(
            isinstance(t, int) and 0 <= t <= HAND_CARDS for t in self.tricks
        ):
            raise ValueError(f"a double-dummy table has 20 trick counts of 0..13, not {self.tricks!r:.100}")
        for strain in SUIT_LETTERS:
            if not any(self._trump_ace_with(pair, strain) for pair in Pair):
                raise ValueError(
                    f"an impossible double-dummy table: in {strain}, the side holding the ace of trumps takes "
                    f"a trick whoever declares, and the other side never takes 13; {self.to_json()}"
                )

    def _trump_ace_with(self, pair: Pair, strain: str) -> bool:
        """Whether the table allows `pair` to hold the ace of trumps in suit `strain`: that ace
        wins the trick it is played to, so its side takes a trick whoever declares, and the
        other side never takes all 13 (docs/DECISIONS.md)."""
        other = Pair.DEFENSE if pair is Pair.DECLARER else Pair.DECLARER
        return all(self.of(r, strain) >= 1 for r in pair.roles) and all(
            self.of(r, strain) <= HAND_CARDS - 1 for r in other.roles
        )

    def of(self, role: Role, strain: str) -> int:
        return self.tricks[ROLES.index(role) * len(STRAINS) + STRAINS.index(strain)]

    def to_json(self) -> dict[str, dict[str, int]]:
        return {role.value: {strain: self.of(role, strain) for strain in STRAINS} for role in ROLES}

    @property
    def text(self) -> str:
        """20 hexadecimal digits in the table's order (how the state store keeps it)."""
        return "".join(f"{t:x}" for t in self.tricks)

    @classmethod
    def from_text(cls, text: str) -> DDTable:
        """The table `text` says; a `ValueError` unless it is 20 hexadecimal digits making a
        table that can be."""
        if len(text) != len(ROLES) * len(STRAINS) or not all(digit in _HEX_DIGITS for digit in text):
            raise ValueError(f"a double-dummy table is 20 hexadecimal digits, not {text!r:.40}")
        return cls(tuple(int(digit, 16) for digit in text))

    def best(self, roles: Iterable[Role]) -> dict[str, int]:
        """The most tricks any of `roles` takes in each strain."""
        roles = tuple(roles)
        return {strain: max(self.of(role, strain) for role in roles) for strain in STRAINS}


@dataclass(frozen=True)
class ParContract:
    """One par contract: `level` and `strain`, doubled or not, declared by `declarer`, making
    `result` tricks more (or, negative, fewer) than it needs."""

    level: int
    strain: str
    doubled: bool
    declarer: Role
    result: int

    @property
    def bid(self) -> str:
        """`4H`, `5Dx`, `3NT+1`, `5Hx-2`: the contract with its result, as scorers write it."""
        return f"{self.level}{self.strain}{'x' if self.doubled else ''}{f'{self.result:+d}' if self.result else ''}"

    @property
    def text(self) -> str:
        return f"{self.bid} by {self.declarer.value}"


@dataclass(frozen=True)
class ParResult:
    """The par of a deal on a board: the roles vulnerable, the score from the opener's side
    (positive: the opener's side gains), and the par contracts (none: passed out)."""

    vulnerable: tuple[Role, ...]
    score: int
    contracts: tuple[ParContract, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "vulnerable": [role.value for role in self.vulnerable],
            "score": self.score,
            "contracts": [contract.text for contract in self.contracts],
        }


def dds_memory_mb() -> int:
    """The bound on DDS's tables, all threads together (MB)."""
    if _memory_bound_mb is not None:
        return _memory_bound_mb
    return DDS_TABLE_MB * (os.cpu_count() or 1)


def bound_memory(megabytes: int) -> None:
    """Bound DDS's tables to `megabytes` in all, for this process (`deals --dd-memory`): each
    thread's table gets an equal share (fewer threads where a share would be under
    `DDS_MEMORY_MB_LEAST`); the tables are the same, only slower to find under a tighter bound,
    and quicker for hard deals under a looser one (docs/BENCHMARKS.md). DDS's memory is one
    per process, so the bound holds for every later solve, and is applied at once when DDS is
    already loaded."""
    global _memory_bound_mb
    if megabytes < DDS_MEMORY_MB_LEAST:
        raise ValueError(f"DDS needs {DDS_MEMORY_MB_LEAST} MB at least (one table), not {megabytes}")
    _memory_bound_mb = megabytes
    if _dds.cache_info().currsize:
        _size(_dds()._dll)


def _size(dll: Any) -> None:
    """DDS's threads and tables for the bound (`dds_memory_mb`): a large table a thread with
    its share as ceiling, or, where this DDS build does not allow that, DDS's own sizes."""
    try:
        size_tables(dll, dds_memory_mb())
    except TablesUnsized:
        size_own(dll, _memory_bound_mb)


@functools.cache
def _dds() -> Any:
    """endplay's ctypes bindings of DDS (`endplay._dds`), loaded alone: importing them the
    usual way runs endplay's `__init__`, which loads its dealer and matplotlib (a second of
    imports, and matplotlib writes its configuration folder under the home). The module
    loads DDS's shared library (and starts its threads) when it runs: only when solving."""
    import importlib.util
    import sys

    name = "endplay._dds"
    dds = sys.modules.get(name)
    if dds is None:
        map_large_blocks()  # before DDS's first tables
        # find_spec of a top-level package finds it without running it
        package = importlib.util.find_spec("endplay")
        if package is None or not package.submodule_search_locations:
            raise ImportError("endplay (which ships DDS) is not installed")
        spec = importlib.util.spec_from_file_location(
            name, os.path.join(next(iter(package.submodule_search_locations)), "_dds", "__init__.py")
        )
        if spec is None or spec.loader is None:
            raise ImportError("endplay's DDS bindings (endplay/_dds) are missing")
        dds = importlib.util.module_from_spec(spec)
        # Under its own name, so that endplay, when something imports it later, finds it
        # loaded and does not load it again (its load resets DDS's threads and memory).
        sys.modules[name] = dds
        try:
            spec.loader.exec_module(dds)
        except BaseException:
            del sys.modules[name]
            raise
    _size(dds._dll)
    return dds


def _cards(pbn: str):
    """DDS's `remainCards` (seat by suit, rank bits) of an opener-North deal string; a deal
    that is not full and legal is a `ValueError` here, never given to DDS (which writes a
    `dump.txt` into the working folder for a deal it refuses)."""
    dds = _dds()
    if not pbn.startswith("N:"):
        raise ValueError(f"a deal to solve starts with N: (the opener North), not {pbn[:2]!r}")
    parse_deal(pbn)  # PbnError (a ValueError) unless four hands of 13 and 52 distinct cards
    deal = dds.ddTableDeal()
    for seat, hand in enumerate(pbn[2:].split()):
        for suit, holding in enumerate(hand.split(".")):
            deal.cards[seat][suit] = sum(_RANK_BIT[letter] for letter in holding)
    return deal


def _table_of(results) -> DDTable:
    """Our table from DDS's `resTable[strain][seat]` of an opener-North deal."""
    return DDTable(
        tuple(results.resTable[_DDS_TABLE_STRAIN[strain]][ROLE_SEAT[role]] for role in ROLES for strain in STRAINS)
    )


def solve_batch(pbns: Sequence[str]) -> list[DDTable]:
    """The tables of up to `BATCH_LIMIT` deals in one DDS call; `DoubleDummyError` if DDS
    refuses any of them."""
    dds = _dds()
    if len(pbns) > BATCH_LIMIT:
        raise ValueError(f"DDS solves at most {BATCH_LIMIT} tables at a time, not {len(pbns)}")
    if not pbns:
        return []
    deals = dds.ddTableDeals()
    deals.noOfTables = len(pbns)
    for i, pbn in enumerate(pbns):
        deals.ddTableDeal[i] = _cards(pbn)
    results = dds.ddTablesRes()
    try:
        dds.CalcAllTables(deals, -1, [0] * 5, results, dds.allParResults())
    except dds.DDSError as exc:
        raise DoubleDummyError(str(exc)) from exc
    return [_table_of(results.results[i]) for i in range(len(pbns))]


def solve(pbns: Sequence[str]) -> list[DDTable | None]:
    """The table of each deal, batched; `None` for a deal DDS fails on (the batch it was in is
    solved again deal by deal, so one bad deal costs only its own table)."""
    out: list[DDTable | None] = []
    for start in range(0, len(pbns), BATCH_LIMIT):
        batch = pbns[start : start + BATCH_LIMIT]
        try:
            out.extend(solve_batch(batch))
        except (DoubleDummyError, ValueError, KeyError):
            out.extend(_one_by_one(batch))
    return out


def dds_thread() -> Executor:
    """The thread that runs a stream's DDS calls (`solved`): one for the whole process, as
    DDS solves one call at a time (two calls at once crash it)."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="dds")


def solved(batches: Iterable[Sequence[str]], thread: Executor) -> Iterator[list[DDTable | None]]:
    """`solve` of each of `batches` (each at most `BATCH_LIMIT` deals), in order, as a stream:
    DDS solves on `thread` (`dds_thread`; ctypes lets the GIL go during its calls), the next
    batch given to it before the caller is handed the one before (but for the first), so DDS
    does not wait for the caller's writing while the caller keeps up; at most two batches
    are held."""
    ahead = None
    for n, batch in enumerate(batches):
        submitted = thread.submit(solve, batch)
        if ahead is not None:
            yield ahead.result()
        ahead = submitted
        if n == 0:  # the first at once, alone: the first boards of every stream wait for no other batch
            yield ahead.result()
            ahead = None
    if ahead is not None:
        yield ahead.result()


def _one_by_one(pbns: Sequence[str]) -> list[DDTable | None]:
    out: list[DDTable | None] = []
    for pbn in pbns:
        try:
            out.extend(solve_batch([pbn]))
        except (DoubleDummyError, ValueError, KeyError):
            out.append(None)
    return out


def par(table: DDTable, board: Board) -> ParResult:
    """DDS's par of `table` on `board`: the opener deals, and each side is vulnerable as the
    board says for the seats its roles take there."""
    dds = _dds()
    vulnerable = tuple(role for role in ROLES if board.is_vulnerable(role))
    results = dds.ddTableResults()
    for role in ROLES:
        for strain in STRAINS:
            results.resTable[_DDS_TABLE_STRAIN[strain]][ROLE_SEAT[role]] = table.of(role, strain)
    side_vulnerable = (Role.OPENER in vulnerable, Role.OPP1 in vulnerable)
    master = dds.parResultsMaster()
    try:
        dds.DealerParBin(results, master, ROLE_SEAT[Role.OPENER], _DDS_VUL[side_vulnerable])
    except dds.DDSError as exc:
        raise DoubleDummyError(str(exc)) from exc
    contracts: list[ParContract] = []
    for i in range(master.number):
        c = master.contracts[i]
        strain = _DDS_PAR_STRAIN[c.denom]
        # Seats 0..3 are one declarer; 4 and 5 are either player of North-South, East-West.
        seats = (c.seats,) if c.seats < 4 else ((0, 2) if c.seats == 4 else (1, 3))
        result = c.overTricks - c.underTricks
        for seat in seats:
            role = next(r for r in ROLES if ROLE_SEAT[r] == seat)
            contracts.append(ParContract(c.level, strain, c.underTricks > 0, role, result))
    # DDS's dealer par score is North-South's, and the opener sits North here.
    return ParResult(vulnerable, master.score, tuple(contracts))


# --- PBN ---------------------------------------------------------------------------------

#: How PBN 2.1 heads the result table: three columns, the last two right-aligned, width 2.
#: The result table's column format, and its full tag line as a file has it.
RESULT_TABLE_COLUMNS = "Declarer;Denomination\\2R;Result\\2R"
RESULT_TABLE_TAG = f'[OptimumResultTable "{RESULT_TABLE_COLUMNS}"]'
_PBN_SEAT_ORDER = "NSEW"  # the rows, as Bridge Composer and DDS's tools write them


def pbn_tags(table: DDTable, board: Board) -> tuple[PbnTag, ...]:
    """The PBN tags of `table` on `board`, in its orientation (the opener at
    `board.seat_of(Role.OPENER)`): `[OptimumScore "NS 420"]` (North-South's score) and
    `[ParContract "NS 4H"]` when the board's vulnerability is known (one of the cycle's),
    then the result table with its 20 rows."""
    role_at = {board.seat_of(role): role for role in ROLES}
    tags = []
    if board.vulnerable in VULNERABILITY_CYCLE:
        result = par(table, board)
        opener_ns = board.seat_of(Role.OPENER) % 2 == 0
        tags.append(PbnTag("OptimumScore", f"NS {result.score if opener_ns else -result.score}"))
        tags.append(PbnTag("ParContract", _pbn_contracts(result, board)))
    rows = tuple(
        f"{letter} {strain:>2} {table.of(role_at[SEAT_LETTERS.index(letter)], strain):>2}"
        for letter in _PBN_SEAT_ORDER
        for strain in STRAINS
    )
    tags.append(PbnTag("OptimumResultTable", RESULT_TABLE_COLUMNS, rows, verbatim=True))
    return tuple(tags)


def _pbn_contracts(result: ParResult, board: Board) -> str:
    """`NS 4H; NS 4S` (a contract both partners make under the side's name), `E 3NT`, or
    `NS Pass` for a deal passed out."""
    if not result.contracts:
        return "NS Pass"
    named: dict[tuple[int, str, bool, int], list[str]] = {}
    for contract in result.contracts:
        key = (contract.level, contract.strain, contract.doubled, contract.result)
        named.setdefault(key, []).append(SEAT_LETTERS[board.seat_of(contract.declarer)])
    parts = []
    for (level, strain, doubled, made), seats in named.items():
        who = "".join(s for s in "NSEW" if s in seats)
        bid = ParContract(level, strain, doubled, Role.OPENER, made).bid
        parts.append(f"{who} {bid}")
    return "; ".join(parts)


# --- what a scenario's deals make ----------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """Of a scenario's `deals`, how many have a table (`analysed`), and in how many of those
    the opener's side makes a game (or more) and a slam in its best strain."""

    deals: int
    analysed: int
    game: int
    slam: int


def makes_game(table: DDTable) -> bool:
    """Whether the opener's side (either of them declaring) makes a game in some strain."""
    best = table.best(Pair.DECLARER.roles)
    return any(best[strain] >= GAME_TRICKS[strain] for strain in STRAINS)


def makes_slam(table: DDTable) -> bool:
    return max(table.best(Pair.DECLARER.roles).values()) >= SLAM_TRICKS


def summary(tables: Sequence[DDTable | None]) -> Summary:
    """What the opener's side makes over a scenario's deals (`None`: not analysed yet)."""
    known = [t for t in tables if t is not None]
    return Summary(len(tables), len(known), sum(map(makes_game, known)), sum(map(makes_slam, known)))
