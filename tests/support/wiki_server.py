"""A real, throw-away MediaWiki for integration tests.

Debian's ``mediawiki`` package (unpacked by ``scripts/mediawiki/install-deps.sh``)
on SQLite, served by ``php -S`` on 127.0.0.1; created and driven through
``scripts/mediawiki/wiki.sh``. The admin client below talks to the Action API
with plain ``requests`` (the project under test uses mwclient; the harness stays
independent of it).

    with WikiServer().start() as wiki:          # fresh wiki in a temp dir, free port
        admin = wiki.admin                      # logged-in WikiClient (main account)
        rev = admin.edit("Template:Convenzione", "{{{shape_constraints|}}}")
        admin.delete("Template:Convenzione")
        wiki.run_jobs()
        bot = wiki.client(bot=True)             # logged in with the bot password

No pytest dependency. Errors: WikiStartError (with the tail of the PHP log) when
the wiki does not come up in ``start_timeout`` seconds, ApiError for API errors.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Iterator

import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
WIKI_SH = REPO_ROOT / "scripts" / "mediawiki" / "wiki.sh"
INSTALL_DEPS_SH = REPO_ROOT / "scripts" / "mediawiki" / "install-deps.sh"
DEFAULT_MEDIAWIKI_HOME = "/var/cache/bridgeshape-mirror/mediawiki"

__all__ = [
    "ApiError",
    "WikiClient",
    "WikiError",
    "WikiServer",
    "WikiStartError",
    "ensure_installed",
    "is_installed",
    "mediawiki_home",
]


class WikiError(RuntimeError):
    """Anything that goes wrong with the test wiki."""


class WikiStartError(WikiError):
    """The wiki could not be created or did not answer in time."""


class ApiError(WikiError):
    """The Action API answered with an error (or an unexpected result)."""

    def __init__(self, code: str, info: str, response: dict | None = None):
        super().__init__(f"{code}: {info}")
        self.code = code
        self.info = info
        self.response = response or {}


def mediawiki_home() -> Path:
    return Path(os.environ.get("BSM_MEDIAWIKI_HOME") or DEFAULT_MEDIAWIKI_HOME)


def is_installed() -> bool:
    """True when install-deps.sh has run (php on PATH and the unpacked tree exist)."""
    core = mediawiki_home() / "core"
    return (
        shutil.which("php") is not None
        and (core / ".bsm-unpacked").is_file()
        and (core / "maintenance" / "install.php").is_file()
    )


def ensure_installed() -> None:
    """Run scripts/mediawiki/install-deps.sh (apt-get; needs root) unless done already."""
    if is_installed():
        return
    proc = subprocess.run(
        ["bash", str(INSTALL_DEPS_SH)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0 or not is_installed():
        raise WikiStartError(
            f"{INSTALL_DEPS_SH} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        )


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path | None, lines: int = 40) -> str:
    if path is None:
        return "(no log yet)"
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"({path} not readable)"
    return "\n".join(text.splitlines()[-lines:])


def _read_env(path: Path) -> dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        if "=" in line:
            key, _, value = line.partition("=")
            env[key.strip()] = value
    return env


# Servers still running at interpreter exit are stopped then.
_LIVE: "weakref.WeakSet[WikiServer]" = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    for server in list(_LIVE):
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - best effort at exit
            pass


class WikiServer:
    """One MediaWiki served by ``php -S 127.0.0.1:PORT`` from ``state_dir``.

    Attributes after start(): ``state_dir``, ``port``, ``host`` (``127.0.0.1:PORT``),
    ``script_path`` (``/``), ``base_url``, ``api_url``, ``index_url``, ``admin_user``,
    ``admin_password``, ``bot_user`` (``Admin@bsm``), ``bot_password``, ``bot_appid``,
    ``log_path`` (the PHP server log).

    For mwclient (the tool under test):
    ``mwclient.Site(wiki.host, path=wiki.script_path, scheme="http")`` then
    ``site.login(wiki.bot_user, wiki.bot_password)``.
    """

    def __init__(
        self,
        state_dir: str | os.PathLike | None = None,
        port: int = 0,
        *,
        fresh: bool = True,
        start_timeout: float = 60.0,
        workers: int = 1,
        rc_feed: str | None = None,
    ):
        """``rc_feed``: ``udp://HOST:PORT`` the wiki sends every recent change to
        (``$wgRCFeeds``, JSON over UDP; ``wiki.sh --rc-feed``)."""
        self._state_dir_arg = Path(state_dir) if state_dir is not None else None
        self._port_arg = port
        self.fresh = fresh
        self.start_timeout = start_timeout
        self.workers = workers
        self.rc_feed = rc_feed
        self._proc: subprocess.Popen | None = None
        self._tmpdir: str | None = None
        self._admin: WikiClient | None = None
        self._lock = threading.Lock()
        self.state_dir: Path | None = None
        self.log_path: Path | None = None
        self.port: int = 0
        self.host = ""  # "127.0.0.1:PORT"
        self.script_path = "/"  # api.php and index.php live at the root
        self.base_url = self.api_url = self.index_url = ""
        self.admin_user = self.admin_password = ""
        self.bot_user = self.bot_password = self.bot_appid = ""

    # ---------------------------------------------------------------- lifecycle
    def start(
        self,
        state_dir: str | os.PathLike | None = None,
        port: int | None = None,
        *,
        fresh: bool | None = None,
    ) -> "WikiServer":
        """Create the wiki (install.php + bot password) if needed and serve it.

        ``state_dir`` None: a temporary folder, removed by stop(). ``port`` 0: a free
        port. ``fresh`` True (default): wipe a wiki left in ``state_dir`` by an
        earlier run (only folders made by wiki.sh are ever wiped). Returns self.
        """
        if self.running:
            raise WikiError(f"already running at {self.base_url}")
        if state_dir is not None:
            self._state_dir_arg = Path(state_dir)
        if port is not None:
            self._port_arg = port
        if fresh is not None:
            self.fresh = fresh
        if not is_installed():
            raise WikiStartError(
                f"MediaWiki is not installed in {mediawiki_home()} (or php is missing); "
                f"run: bash {INSTALL_DEPS_SH}"
            )
        if self._state_dir_arg is None:
            self._tmpdir = tempfile.mkdtemp(prefix="bsm-wiki-")
            self.state_dir = Path(self._tmpdir)
        else:
            self.state_dir = self._state_dir_arg.resolve()
            self.state_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.state_dir / "php-server.log"

        create = ["bash", str(WIKI_SH), "create", str(self.state_dir)]
        if self.fresh:
            create.append("--fresh")
        proc = subprocess.run(create, capture_output=True, text=True, check=False, env=self._env())
        if proc.returncode != 0:
            self._cleanup_tmp()
            raise WikiStartError(
                f"creating the wiki in {self.state_dir} failed:\n{proc.stderr[-4000:]}"
            )

        # A free port picked here may be taken before php binds it: retry then.
        attempts = 3 if self._port_arg == 0 else 1
        for attempt in range(attempts):
            port = self._port_arg or _free_port()
            try:
                self._serve(port)
                break
            except WikiStartError as exc:
                if "Address already in use" in str(exc) and attempt + 1 < attempts:
                    continue
                self._cleanup_tmp()
                raise
        _LIVE.add(self)
        return self

    def _serve(self, port: int) -> None:
        assert self.state_dir is not None and self.log_path is not None
        env = self._env()
        env["BSM_PHP_SERVER_WORKERS"] = str(self.workers)
        # wiki.sh stops php -S by itself if this process dies without stop().
        env["BSM_WIKI_PARENT_PID"] = str(os.getpid())
        self.log_path.write_text("")
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        try:
            self._proc = subprocess.Popen(
                ["bash", str(WIKI_SH), "serve", str(self.state_dir), str(port)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # own process group: stop() kills it whole
            )
        finally:
            log.close()
        self.port = port
        self.host = f"127.0.0.1:{port}"
        self.base_url = f"http://127.0.0.1:{port}"
        self.api_url = f"{self.base_url}/api.php"
        self.index_url = f"{self.base_url}/index.php"
        deadline = time.monotonic() + self.start_timeout
        probe = requests.Session()
        try:
            while True:
                if self._proc.poll() is not None:
                    rc = self._proc.returncode
                    self._proc = None
                    raise WikiStartError(
                        f"php -S for {self.state_dir} exited early (exit {rc}); "
                        f"tail of {self.log_path}:\n{_tail(self.log_path)}"
                    )
                try:
                    r = probe.get(
                        self.api_url,
                        params={"action": "query", "meta": "siteinfo", "format": "json"},
                        timeout=5,
                    )
                    if r.status_code == 200 and "sitename" in r.text:
                        break
                except requests.RequestException:
                    pass
                if time.monotonic() > deadline:
                    self._kill()
                    raise WikiStartError(
                        f"the wiki at {self.api_url} did not answer within "
                        f"{self.start_timeout:.0f}s; tail of {self.log_path}:\n"
                        f"{_tail(self.log_path)}"
                    )
                time.sleep(0.1)
        finally:
            probe.close()
        env_file = _read_env(self.state_dir / "wiki.env")
        self.admin_user = env_file["ADMIN_USER"]
        self.admin_password = env_file["ADMIN_PASS"]
        self.bot_user = env_file["BOT_USER"]
        self.bot_password = env_file["BOT_PASS"]
        self.bot_appid = env_file["BOT_APPID"]

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("BSM_WIKI_RC_FEED", None)
        if self.rc_feed:
            env["BSM_WIKI_RC_FEED"] = self.rc_feed
        return env

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue

    def _cleanup_tmp(self) -> None:
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def stop(self) -> None:
        """Stop the server (idempotent). A temporary state dir is removed."""
        with self._lock:
            if self._admin is not None:
                self._admin.session.close()
                self._admin = None
            self._kill()
            if self.state_dir is not None:
                try:
                    (self.state_dir / "php-server.pid").unlink()
                except OSError:
                    pass
            self._cleanup_tmp()
            _LIVE.discard(self)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> "WikiServer":
        if not self.running:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<WikiServer {self.base_url or '-'} {state} state_dir={self.state_dir}>"

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines)

    # ----------------------------------------------------------------- clients
    def client(self, *, login: bool = True, bot: bool = False) -> "WikiClient":
        """A new API client; logged in as the admin (main account) or with the
        bot password (``bot=True``), or anonymous (``login=False``)."""
        c = WikiClient(self.api_url)
        if login:
            if bot:
                c.login(self.bot_user, self.bot_password)
            else:
                c.login(self.admin_user, self.admin_password)
        return c

    @property
    def admin(self) -> "WikiClient":
        """A shared client logged in as the admin (created on first use)."""
        if self._admin is None:
            self._admin = self.client()
        return self._admin

    # ------------------------------------------------------ maintenance scripts
    def maint(
        self, script: str, *args: str, timeout: float = 300, check: bool = True
    ) -> subprocess.CompletedProcess:
        """Run ``maintenance/<script>`` against this wiki (``wiki.sh maint``)."""
        if self.state_dir is None:
            raise WikiError("not started")
        proc = subprocess.run(
            ["bash", str(WIKI_SH), "maint", str(self.state_dir), script, *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and proc.returncode != 0:
            raise WikiError(
                f"{script} {' '.join(map(str, args))} failed (exit {proc.returncode}):\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )
        return proc

    def job_count(self) -> int:
        """Jobs waiting in the queue (maintenance/showJobs.php)."""
        out = self.maint("showJobs.php").stdout.strip().splitlines()
        return int(out[-1]) if out else 0

    def run_jobs(self, max_rounds: int = 10) -> int:
        """Run the job queue until it is empty (api.php never runs jobs here:
        $wgJobRunRate = 0). Needed e.g. after editing a template, so that
        ``list=embeddedin`` / templatelinks of the pages using it are updated.
        Returns the number of jobs run."""
        total = 0
        for _ in range(max_rounds):
            proc = self.maint("runJobs.php", "--result", "json")
            try:
                result = json.loads(proc.stdout[proc.stdout.index("{") :])
                total += len(result.get("jobs", []))
            except ValueError:
                pass
            if self.job_count() == 0:
                return total
        raise WikiError(f"job queue not empty after {max_rounds} runJobs.php rounds")

    def import_xml(
        self,
        path: str | os.PathLike,
        *,
        rebuild_recentchanges: bool = True,
        run_jobs: bool = True,
    ) -> None:
        """Import an XML dump (maintenance/importDump.php, as Special:Import would).

        Imported revisions get no recentchanges rows; ``rebuild_recentchanges``
        (default) runs rebuildrecentchanges.php, which regenerates the WHOLE table
        (rcids change): import before the sync under test, or pass False. Then
        site stats are updated and, by default, the jobs run."""
        self.maint("importDump.php", str(Path(path).resolve()))
        if rebuild_recentchanges:
            self.maint("rebuildrecentchanges.php")
        self.maint("initSiteStats.php", "--update")
        if run_jobs:
            self.run_jobs()


class WikiClient:
    """A small Action API client on ``requests`` (no mwclient).

    Every call returns the decoded JSON (formatversion=2) or raises ApiError.
    Titles are given as on the wiki (``Template:Convenzione``, spaces or ``_``).
    """

    def __init__(self, api_url: str, *, timeout: float = 60.0):
        self.api_url = api_url
        self.timeout = timeout
        self.session = requests.Session()
        self.session.headers["User-Agent"] = "bridgeshape-mirror-test-harness/0.1"
        self.username: str | None = None
        self._csrf: str | None = None

    # ------------------------------------------------------------- raw access
    def _check(self, data: dict) -> dict:
        if "error" in data:
            err = data["error"]
            raise ApiError(err.get("code", "?"), err.get("info", ""), data)
        return data

    def get(self, **params: Any) -> dict:
        params.setdefault("format", "json")
        params.setdefault("formatversion", "2")
        r = self.session.get(self.api_url, params=params, timeout=self.timeout)
        r.raise_for_status()
        return self._check(r.json())

    def post(self, **params: Any) -> dict:
        params.setdefault("format", "json")
        params.setdefault("formatversion", "2")
        r = self.session.post(self.api_url, data=params, timeout=self.timeout)
        r.raise_for_status()
        return self._check(r.json())

    def token(self, kind: str = "csrf") -> str:
        data = self.get(action="query", meta="tokens", type=kind)
        return data["query"]["tokens"][f"{kind}token"]

    def _write(self, **params: Any) -> dict:
        """POST with the CSRF token; refetch it once on badtoken."""
        for attempt in (0, 1):
            if self._csrf is None:
                self._csrf = self.token("csrf")
            try:
                return self.post(token=self._csrf, **params)
            except ApiError as exc:
                if exc.code == "badtoken" and attempt == 0:
                    self._csrf = None
                    continue
                raise
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ login
    def login(self, username: str, password: str) -> "WikiClient":
        """Log in. ``User@appid`` names use action=login (bot passwords);
        main accounts use action=clientlogin."""
        self._csrf = None
        logintoken = self.token("login")
        if "@" in username:
            data = self.post(
                action="login", lgname=username, lgpassword=password, lgtoken=logintoken
            )
            result = data.get("login", {})
            if result.get("result") != "Success":
                raise ApiError("login-failed", json.dumps(result), data)
            self.username = result.get("lgusername", username)
        else:
            data = self.post(
                action="clientlogin",
                username=username,
                password=password,
                logintoken=logintoken,
                loginreturnurl=self.api_url,
            )
            result = data.get("clientlogin", {})
            if result.get("status") != "PASS":
                raise ApiError("login-failed", json.dumps(result), data)
            self.username = result.get("username", username)
        return self

    def userinfo(self) -> dict:
        return self.get(action="query", meta="userinfo", uiprop="groups|rights")["query"][
            "userinfo"
        ]

    # ----------------------------------------------------------------- writing
    def edit(
        self,
        title: str,
        text: str,
        summary: str = "",
        *,
        minor: bool = False,
        bot: bool = False,
        createonly: bool = False,
        nocreate: bool = False,
    ) -> int:
        """Save ``text`` as the new content of ``title``; return the new revid
        (for a no-change edit, the current latest revid)."""
        params: dict[str, Any] = {
            "action": "edit",
            "title": title,
            "text": text,
            "summary": summary,
        }
        if minor:
            params["minor"] = 1
        if bot:
            params["bot"] = 1
        if createonly:
            params["createonly"] = 1
        if nocreate:
            params["nocreate"] = 1
        data = self._write(**params)
        result = data.get("edit", {})
        if result.get("result") != "Success":
            raise ApiError("edit-failed", json.dumps(result), data)
        if result.get("nochange"):
            return self.latest_revid(title)
        return int(result["newrevid"])

    def create(self, title: str, text: str, summary: str = "") -> int:
        """Create a new page (fails with ApiError 'articleexists' if it exists)."""
        return self.edit(title, text, summary, createonly=True)

    def append(self, title: str, text: str, summary: str = "") -> int:
        data = self._write(action="edit", title=title, appendtext=text, summary=summary)
        return int(data["edit"]["newrevid"])

    def delete(self, title: str, reason: str = "") -> int:
        """Delete a page; returns the log id."""
        data = self._write(action="delete", title=title, reason=reason)
        return int(data["delete"]["logid"])

    def undelete(self, title: str, reason: str = "") -> int:
        """Restore all deleted revisions of a page; returns how many were restored."""
        data = self._write(action="undelete", title=title, reason=reason)
        return int(data["undelete"]["revisions"])

    def move(
        self,
        old: str,
        new: str,
        leave_redirect: bool = False,
        reason: str = "",
        *,
        move_talk: bool = True,
    ) -> dict:
        """Move (rename) a page; returns the API's ``move`` result."""
        params: dict[str, Any] = {"action": "move", "from": old, "to": new, "reason": reason}
        if not leave_redirect:
            params["noredirect"] = 1
        if move_talk:
            params["movetalk"] = 1
        return self._write(**params)["move"]

    def protect(
        self, title: str, protections: str = "edit=sysop|move=sysop", reason: str = ""
    ) -> dict:
        return self._write(action="protect", title=title, protections=protections, reason=reason)[
            "protect"
        ]

    def add_groups(self, user: str, *groups: str, reason: str = "") -> dict:
        """Add `user` to `groups` (``action=userrights``: its own token kind)."""
        return self.post(
            action="userrights", user=user, add="|".join(groups), reason=reason, token=self.token("userrights")
        )["userrights"]

    def purge(self, *titles: str, forcelinkupdate: bool = True) -> dict:
        params: dict[str, Any] = {"action": "purge", "titles": "|".join(titles)}
        if forcelinkupdate:
            params["forcelinkupdate"] = 1
        return self.post(**params)

    # ----------------------------------------------------------------- reading
    def page_info(self, title: str) -> dict:
        """``prop=info`` of one page (``missing`` True when it does not exist)."""
        data = self.get(action="query", prop="info", titles=title)
        return data["query"]["pages"][0]

    def page_id(self, title: str) -> int | None:
        """The page id, or None when the page does not exist."""
        info = self.page_info(title)
        return None if info.get("missing") else int(info["pageid"])

    def latest_revid(self, title: str) -> int | None:
        info = self.page_info(title)
        return None if info.get("missing") else int(info["lastrevid"])

    def page_text(self, title: str) -> str | None:
        data = self.get(
            action="query", prop="revisions", titles=title, rvprop="content|ids", rvslots="main"
        )
        page = data["query"]["pages"][0]
        if page.get("missing"):
            return None
        return page["revisions"][0]["slots"]["main"]["content"]

    def query_list(
        self, list_name: str, prefix: str, limit: int | None = None, **params: Any
    ) -> Iterator[dict]:
        """Iterate over ``list=<list_name>`` results, following continuation."""
        params = {f"{prefix}{k}" if not k.startswith(prefix) else k: v for k, v in params.items()}
        params.setdefault(f"{prefix}limit", "max")
        cont: dict[str, str] = {}
        seen = 0
        while True:
            data = self.get(action="query", list=list_name, **params, **cont)
            for item in data.get("query", {}).get(list_name, []):
                yield item
                seen += 1
                if limit is not None and seen >= limit:
                    return
            if "continue" not in data:
                return
            cont = data["continue"]

    def embeddedin(self, title: str, namespace: int | None = None) -> list[str]:
        """Titles of the pages transcluding ``title`` (``list=embeddedin``)."""
        params: dict[str, Any] = {"title": title}
        if namespace is not None:
            params["namespace"] = namespace
        return [p["title"] for p in self.query_list("embeddedin", "ei", **params)]

    def logevents(
        self,
        type: str | None = None,
        title: str | None = None,
        limit: int | None = 500,
        **params: Any,
    ) -> list[dict]:
        """``list=logevents``, newest first."""
        if type is not None:
            params["type"] = type
        if title is not None:
            params["title"] = title
        params.setdefault("prop", "ids|title|type|user|timestamp|comment|details")
        return list(self.query_list("logevents", "le", limit=limit, **params))

    def recentchanges(self, limit: int | None = 500, **params: Any) -> list[dict]:
        """``list=recentchanges``, newest first (rcprop includes loginfo)."""
        params.setdefault("prop", "title|ids|timestamp|user|comment|loginfo|sizes|flags|redirect")
        return list(self.query_list("recentchanges", "rc", limit=limit, **params))

    def siteinfo(self, prop: str = "general|statistics") -> dict:
        return self.get(action="query", meta="siteinfo", siprop=prop)["query"]
