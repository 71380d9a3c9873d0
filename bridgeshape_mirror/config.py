"""The configuration file cron repeats (TOML), merged under the command-line flags.

    [wiki]
    api = "https://wiki.example.org/w/api.php"   # or: dump = "export.xml"
    contact = "mailto:ops@example.org"           # goes into the User-Agent
    template = "Convenzione"
    parameter = "shape_constraints"
    category = "Convenzioni"                     # optional
    username = "Admin@mirror"                    # optional bot password login
    password_file = "/etc/bridgeshape-mirror/password"   # or env BSM_WIKI_PASSWORD
    report_page = "Progetto:Convenzioni/Rapporto"   # optional: the report written onto this page (a bot edit)

    [sync]
    state = "state/bridgeshape.sqlite"
    timeout = 30          # seconds per request
    max_retries = 4
    deadline = 600        # seconds for the whole run
    info_check_hours = 6  # the periodic prop=info comparison; 0 = every run
    allow_removals = false  # true accepts a mass removal of convention pages (exit 7 otherwise)

    [build]
    out = "output"        # or s3://BUCKET/PREFIX (object storage)
    deals = 10
    seed = 0
    lang = "it"           # optional: the site's language (default: the wiki's)
    endpoint_url = "http://127.0.0.1:9000"   # optional, for an S3-compatible store
    stage = "state/mirror"  # optional: with out = s3://..., where the mirror is built first
    nginx_origin = "http://127.0.0.1:9000/BUCKET/PREFIX"  # optional: with out = s3://..., where nginx reads it
    dd_budget = 120       # seconds of double-dummy analysis per run (0: none)
    level = "hcp:opener"  # optional: every scenario's deals a levelled set by this measure (or two, space-separated)

    [follow]
    listen = "udp://127.0.0.1:8095"   # where the wiki's $wgRCFeeds sends (optional: polling only)
    poll = 60             # seconds between polls of recent changes (the safety net)
    coalesce = 10         # seconds at least from one publish's start to the next one's

    [serve]
    max_age = 300         # Cache-Control max-age of every answer (serve, and the nginx snippet the build writes)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any, get_type_hints



class ConfigError(ValueError):
    """The configuration file or flags are unusable."""


# The settings dataclasses whose defaults Config takes. Imported when a Config is made, not
# with this module: the build's brings numpy and the site's templates, which `validate` and
# `deals` never need, so the CLI does not import them at start. The sync's live apart from
# the client (`sync.settings`), so that no command but `sync` imports mwclient and requests.
def _client() -> type:
    from bridgeshape_mirror.sync.settings import ClientSettings

    return ClientSettings


def _sync() -> type:
    from bridgeshape_mirror.sync.settings import SyncSettings

    return SyncSettings


def _build() -> type:
    from bridgeshape_mirror.site_builder.build import BuildSettings

    return BuildSettings


def _follow() -> type:
    from bridgeshape_mirror.sync.settings import FollowSettings

    return FollowSettings


def _serve() -> type:
    from bridgeshape_mirror.serving.api_headers import ServeSettings

    return ServeSettings


def _library_default(settings: Callable[[], type], name: str, convert: Callable[[Any], Any] | None) -> Any:
    default = settings().__dataclass_fields__[name].default
    return convert(default) if convert else default


def _library(settings: Callable[[], type], name: str, convert: Callable[[Any], Any] | None = None) -> Any:
    """A field whose default is the library's: field `name` of the `settings` dataclass."""
    return field(default_factory=partial(_library_default, settings, name, convert))


def _hours(every: Any) -> float:
    return every.total_seconds() / 3600


@dataclass
class Config:
    api: str | None = None
    dump: str | None = None
    username: str | None = None
    password: str | None = None
    #: The wiki page the validation report is written to after each publish (None: none).
    report_page: str | None = None
    #: Where the state store and the mirror live is the CLI's to say: the library is always told.
    state: str = "state/bridgeshape.sqlite"
    out: str = "output"
    contact: str = _library(_client, "contact")
    template: str = _library(_sync, "template")
    parameter: str = _library(_sync, "parameter")
    category: str | None = _library(_sync, "category")
    timeout: float = _library(_client, "timeout")
    max_retries: int = _library(_client, "max_retries")
    deadline: float = _library(_client, "deadline")
    info_check_hours: float = _library(_sync, "info_check_every", _hours)
    full: bool = _library(_sync, "full")
    allow_removals: bool = _library(_sync, "allow_removals")
    deals: int = _library(_build, "deals")
    seed: int = _library(_build, "seed")
    dd_budget: float = _library(_build, "dd_budget")
    max_age: int = _library(_serve, "max_age")
    #: The site's language; None: the wiki's (siteinfo), else English.
    lang: str | None = _library(_build, "lang")
    #: With `out` an s3:// URL: the store's endpoint (None: AWS's), and the local folder the
    #: mirror is built in before its upload (None: beside the state store).
    endpoint_url: str | None = None
    stage: str | None = None
    #: With `out` an s3:// URL: the URL the nginx snippet reads the bucket from (None: the
    #: snippet reads a folder, the server's root).
    nginx_origin: str | None = _library(_build, "nginx_origin")
    #: The measures every scenario's deals are levelled by (`deals --level`'s BY), none: uniform.
    level: tuple[str, ...] = _library(_build, "level")
    #: `follow`: the feed's address (None: polling only), the poll's period, the coalescing.
    listen: str | None = _library(_follow, "listen")
    poll: float = _library(_follow, "poll")
    coalesce: float = _library(_follow, "coalesce")

    def local_out(self) -> str:
        """The folder the mirror is built and published in on this machine."""
        from bridgeshape_mirror.site_builder.object_store import is_bucket_url

        if not is_bucket_url(self.out):
            return self.out
        if self.stage:
            return self.stage
        state = Path(self.state)
        return str(state.with_name(state.stem + ".bucket-mirror"))


_SECTIONS = {
    "wiki": {"api", "dump", "contact", "template", "parameter", "category", "username", "password_file", "report_page"},
    "sync": {"state", "timeout", "max_retries", "deadline", "info_check_hours", "allow_removals"},
    "build": {"out", "deals", "seed", "lang", "endpoint_url", "stage", "dd_budget", "nginx_origin", "level"},
    "serve": {"max_age"},
    "follow": {"listen", "poll", "coalesce"},
}


#: Close names offered for a mistyped section or key, best first.
_SUGGESTIONS = 3


def _did_you_mean(name: str, known: Iterable[str], shown: Callable[[str], str]) -> str:
    import difflib  # here: only for a mistake, and validate never reads a file

    close = difflib.get_close_matches(name, sorted(known), n=_SUGGESTIONS, cutoff=0.6)
    return f"; did you mean {' or '.join(shown(c) for c in close)}?" if close else ""


def _home(key: str) -> str | None:
    """The section a key belongs in, if any."""
    return next((section for section, keys in _SECTIONS.items() if key in keys), None)


def _in_its_section(key: str) -> str:
    return f"{key!r} in [{_home(key)}]"


_ALL_KEYS = frozenset(key for keys in _SECTIONS.values() for key in keys)
_THE_SECTIONS = "the sections are " + ", ".join(f"[{section}]" for section in _SECTIONS)


def _unknown_section(section: str, table: object) -> str:
    """What to say of a name at the top of the file that is not a section: a mistyped
    section, or a key written above every section (TOML's root table)."""
    if isinstance(table, dict):
        hint = _did_you_mean(section, _SECTIONS, lambda name: f"[{name}]")
        return f"unknown section [{section}]{hint or f' ({_THE_SECTIONS})'}"
    if section in _SECTIONS:
        return f"{section} = ... where [{section}] is a section (a table of keys)"
    if section in _ALL_KEYS:
        return f"{section!r} is outside every section: it belongs in [{_home(section)}]"
    hint = _did_you_mean(section, _ALL_KEYS, _in_its_section)
    return f"unknown key {section!r} outside every section{hint or f' ({_THE_SECTIONS})'}"


def _unknown_key(section: str, key: str) -> str:
    """What to say of a key its section does not have: the section it belongs in, or the close
    names, the other sections' with their section (a key mistyped and misplaced)."""
    if key in _ALL_KEYS:
        return f"{key!r} is not a key of [{section}]: it belongs in [{_home(key)}]"
    hint = _did_you_mean(key, _ALL_KEYS, lambda name: repr(name) if name in _SECTIONS[section] else _in_its_section(name))
    return f"unknown key {key!r} in [{section}]{hint}"


def load(path: str | None, overrides: dict[str, Any]) -> Config:
    """The file's values (if any), then every override that is not None; relative paths in
    the file are taken relative to the file."""
    from bridgeshape_mirror.site_builder.object_store import BucketTarget, is_bucket_url

    values: dict[str, Any] = {}
    if path:
        import tomllib  # here, not at the top: 15 ms of every start-up, for commands that read no file

        file = Path(path)
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read the configuration {path}: {exc}") from exc
        for section, table in data.items():
            allowed = _SECTIONS.get(section)
            if allowed is None or not isinstance(table, dict):
                raise ConfigError(f"{path}: {_unknown_section(section, table)}")
            for key, value in table.items():
                if key not in allowed:
                    raise ConfigError(f"{path}: {_unknown_key(section, key)}")
                values[key] = value
        _check_values(values, path)
        for key in ("state", "out", "dump", "password_file", "stage"):
            if key == "out" and is_bucket_url(values.get(key, "")):
                continue
            if key in values and not Path(values[key]).is_absolute():
                values[key] = str(file.parent / values[key])
        password_file = values.pop("password_file", None)
        if password_file:
            try:
                values["password"] = Path(password_file).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ConfigError(f"cannot read the password file {password_file}: {exc}") from exc
    values.update({k: v for k, v in overrides.items() if v is not None})
    if values.get("username") and not values.get("password"):
        values["password"] = os.environ.get("BSM_WIKI_PASSWORD")
    names = {f.name for f in fields(Config)}
    config = Config(**{k: v for k, v in values.items() if k in names})
    if config.api and config.dump:
        raise ConfigError("give either an API URL or a dump file, not both")
    # Checked here, before any request: a login with half its credentials would fail on the
    # wiki after the run's first requests, or (a password alone) be silently ignored.
    if config.username and not config.password:
        raise ConfigError(
            f"user name {config.username!r} given without a password: set password_file in [wiki] "
            "or the BSM_WIKI_PASSWORD environment variable"
        )
    if config.password and not config.username:
        raise ConfigError("a password is given without a user name: set username in [wiki] (a bot password's Name@app)")
    if config.category == "":
        config.category = None
    if config.report_page is not None and not config.report_page.strip():
        raise ConfigError("report_page is blank: name the wiki page the report is written to, or leave it out")
    from bridgeshape_mirror.sync.errors import BadSetting
    from bridgeshape_mirror.sync.settings import check_contact, check_names

    try:  # for every command: one file serves sync, build and update alike
        check_contact(config.contact)
        check_names(config.template, config.parameter)
    except BadSetting as exc:
        raise ConfigError(str(exc)) from exc
    if config.lang is not None:
        config.lang = checked_language(config.lang)
    config.level = checked_level(config.level)
    if is_bucket_url(config.out):
        try:
            BucketTarget.parse(config.out)
        except ValueError as exc:
            raise ConfigError(f"out: {exc}") from exc
        if config.nginx_origin is not None:
            from bridgeshape_mirror.serving.nginx import checked_origin

            try:
                config.nginx_origin = checked_origin(config.nginx_origin)
            except ValueError as exc:
                raise ConfigError(f"nginx_origin: {exc}") from exc
    elif config.endpoint_url or config.stage or config.nginx_origin:
        raise ConfigError("endpoint_url, stage and nginx_origin are for an s3:// out (object storage); out is a folder here")
    return config


def checked_level(value: Any) -> tuple[str, ...]:
    """`level`'s measures: a string of one or two (space-separated), or a list of them, each
    one a measure `deals --level` takes (raises `ConfigError`)."""
    if isinstance(value, str):
        measures = tuple(value.split())
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        measures = tuple(value)
    else:
        raise ConfigError(f"level: {value!r} is not a measure like \"hcp:opener\" (or two, space-separated)")
    if len(measures) > 2:
        raise ConfigError(f"level: {' '.join(measures)!r} has {len(measures)} measures; at most two (their product)")
    if not measures:  # the default: the levels' modules are not loaded for every command
        return measures
    from bridgeshape_mirror.deals.levels import LevelError, check_measure

    try:
        for by in measures:
            check_measure(by)
    except LevelError as exc:
        raise ConfigError(f"level: {exc}") from exc
    return measures


def checked_language(tag: str) -> str:
    """A language asked for (flag or file) that has a catalogue, else a configuration error."""
    from bridgeshape_mirror.dsl import language

    try:
        return language.chosen(tag)
    except language.UnknownLanguage as exc:
        raise ConfigError(str(exc)) from exc


#: The smallest value each number may take (TOML has no unsigned types): a negative count
#: of deals or retries, or a zero timeout, would be taken silently and misbehave later.
_MINIMUM: dict[str, tuple[float, bool]] = {
    # name: (bound, whether the bound itself is allowed)
    "deals": (0, True),
    "seed": (0, True),
    "max_retries": (0, True),
    "info_check_hours": (0, True),
    "timeout": (0, False),
    "deadline": (0, False),
    "max_age": (0, True),
    "dd_budget": (0, True),
    "poll": (0, False),
    "coalesce": (0, True),
}


def _deals_bound() -> tuple[int, str]:
    from bridgeshape_mirror.site_builder.build import DEALS_LIMIT

    return DEALS_LIMIT, "deals per scenario a convention page carries; the deals command deals more"


def _seed_bound() -> tuple[int, str]:
    from bridgeshape_mirror.store.limits import SEED_LIMIT

    return SEED_LIMIT, "a seed is kept as a 64-bit integer"


def _max_age_bound() -> tuple[int, str]:
    from bridgeshape_mirror.serving.api_headers import MAX_AGE_LIMIT

    return MAX_AGE_LIMIT, "a year"


#: The largest value each bounded number may take, and why, for its key and its flag alike:
#: past these a run would fail late (a seed SQLite cannot keep) or carry what no page can (a
#: convention page of 100,000 deals). Each read from its module when asked: `deals --seed`
#: must not import the build.
_UPPER_BOUNDS: dict[str, Callable[[], tuple[int, str]]] = {
    "deals": _deals_bound,
    "seed": _seed_bound,
    "max_age": _max_age_bound,
}


def upper_bound(name: str) -> tuple[int, str]:
    """(bound, why) of the number `name`, a Config field that has one."""
    return _UPPER_BOUNDS[name]()


def upper_bounds() -> dict[str, int]:
    """Every bound, by field name (for the help texts)."""
    return {name: bound()[0] for name, bound in _UPPER_BOUNDS.items()}


def _check_values(values: dict[str, Any], path: str) -> None:
    """Each value of the file against the type of its Config field and its range, so `deals = "ten"`
    or `seed = 1.5` is a configuration error (exit 2), not a failure deep in a run."""
    where = f"{path}: "
    hints = {**get_type_hints(Config), "password_file": str}
    for name, value in values.items():
        if name == "level":  # a string or a list of them: `checked_level`
            continue
        expected = hints[name]
        # bool is an int to isinstance, and an int is a fine float (timeout = 30).
        ok = isinstance(value, expected) and not (isinstance(value, bool) and expected is not bool)
        if not ok and expected is float:
            ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok:
            raise ConfigError(f"{where}{name} = {value!r:.60} is not {_TYPE_WORDS.get(expected, str(expected))}")
        if isinstance(value, float) and value != value:
            raise ConfigError(f"{where}{name} = nan is not a number")
        if name in _MINIMUM and value is not None:
            bound, allowed = _MINIMUM[name]
            if value < bound or (value == bound and not allowed):
                word = "0 or more" if allowed else "more than 0"
                raise ConfigError(f"{where}{name} = {value!r} must be {word}")
        if name in _UPPER_BOUNDS and value is not None:
            bound, why = upper_bound(name)
            if value > bound:
                raise ConfigError(f"{where}{name} = {value!r:.40} must be at most {bound} ({why})")


_TYPE_WORDS: dict[Any, str] = {
    str: "a string",
    str | None: "a string",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
}
