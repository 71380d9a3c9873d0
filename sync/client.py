"""The MediaWiki Action API client: mwclient underneath, with a retry policy a cron job can live with.

mwclient's own defaults (25 retries, 30 s more per retry, `maxlag` only on index.php, no
retry on 429) can hold a cron run for hours; here mwclient is told never to retry, and this
module retries instead: a bounded number of times, with exponential backoff, honouring
`Retry-After` (maxlag, 429, 503), never past an overall deadline, and with `maxlag` on every
call. Every request is counted, for the log line and the request-budget benchmark.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import mwclient
import mwclient.errors
import requests

from bridgeshape_mirror.store.version import VERSION

from .diagnosis import connection_failure, http_failure, timeout_failure
from .endpoint import is_api_url
from .errors import BadSource, WikiApiError, WikiGarbage, WikiUnavailable
from .http_limits import BoundedAdapter
from .settings import ClientSettings

log = logging.getLogger(__name__)

#: API error codes that say "later", not "never".
RETRYABLE_API_CODES = frozenset(
    {"maxlag", "ratelimited", "readonly", "internal_api_error_DBConnectionError", "internal_api_error_DBQueryError"}
)
RETRYABLE_HTTP = frozenset({429, 500, 502, 503, 504})


def user_agent(contact: str) -> str:
    contact_part = f" ({contact})" if contact else ""
    return f"bridgeshape-mirror/{VERSION}{contact_part} mwclient/{mwclient.__version__}"


def _retry_after(response: requests.Response | None) -> float | None:
    if response is None:
        return None
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class WikiClient:
    """One wiki's api.php. `sleep` and `clock` are injectable so fault tests take no real time."""

    def __init__(
        self,
        settings: ClientSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.settings = settings
        self._sleep = sleep
        self._clock = clock
        self._deadline_at = clock() + settings.deadline
        self._last_response: requests.Response | None = None
        self.requests = 0
        parts = urlsplit(settings.api_url)
        if not is_api_url(settings.api_url):  # runner.api_endpoint looks for the real one first
            raise BadSource(f"the API URL must be an http(s) URL ending in /api.php, got {settings.api_url!r}")
        self.site = mwclient.Site(
            parts.netloc,
            path=parts.path[: -len("api.php")],
            scheme=parts.scheme,
            max_retries=0,
            retry_timeout=0,
            do_init=False,
            force_login=False,
            connection_options={"timeout": settings.timeout},
        )
        # mwclient would append its own product token with a URL; the contract is this one.
        self.site.connection.headers["User-Agent"] = user_agent(settings.contact)
        self.site.connection.hooks["response"].append(self._remember)
        # The timeout bounds the whole answer, and a huge answer is refused (sync/http_limits.py).
        for prefix in ("http://", "https://"):
            self.site.connection.mount(prefix, BoundedAdapter())

    def _remember(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        self._last_response = response

    @property
    def remaining(self) -> float:
        return self._deadline_at - self._clock()

    def login(self) -> None:
        """Log in with a bot password (action=login). Through `call`, so the two requests are
        counted, carry maxlag and follow the retry policy; the session keeps the cookies."""
        if not self.settings.username:
            return
        tokens = self.call("query", meta="tokens", type="login").get("query", {}).get("tokens", {})
        if "logintoken" not in tokens:
            raise WikiGarbage("the wiki sent no login token")
        answer = self.call(
            "login",
            http_method="POST",
            lgname=self.settings.username,
            lgpassword=self.settings.password or "",
            lgtoken=tokens["logintoken"],
        ).get("login", {})
        if answer.get("result") != "Success":
            reason = answer.get("reason") or answer.get("result") or "no reason given"
            if isinstance(reason, dict):
                reason = reason.get("text") or reason.get("code") or str(reason)
            raise WikiApiError("login-failed", f"login as {self.settings.username!r} failed: {reason}")

    def call(self, action: str = "query", *, http_method: str = "GET", **params: Any) -> dict[str, Any]:
        """One API request (retried as the policy allows); returns the decoded JSON object."""
        params = {"maxlag": self.settings.maxlag, "formatversion": 2, **params}
        attempt = 0
        while True:
            attempt += 1
            if self.remaining <= 0:
                raise WikiUnavailable(f"deadline of {self.settings.deadline:g} s reached before {action} request")
            self.site.requests["timeout"] = max(0.1, min(self.settings.timeout, self.remaining))
            self.requests += 1
            self._last_response = None
            problem, retry_after = self._attempt(action, http_method, params)
            if isinstance(problem, dict):
                return problem
            wait = max(retry_after or 0.0, self.settings.backoff * 2 ** (attempt - 1))
            if attempt > self.settings.max_retries:
                raise problem
            if wait > self.settings.max_wait or wait >= self.remaining:
                raise type(problem)(f"{problem}; waiting {wait:g} s more would pass the deadline or the longest wait")
            log.warning("%s; retry %d of %d in %.1f s", problem, attempt, self.settings.max_retries, wait)
            self._sleep(wait)

    def _attempt(self, action: str, http_method: str, params: dict[str, Any]) -> tuple[Any, float | None]:
        """(decoded JSON, None) on success, else (exception to raise if out of retries, Retry-After)."""
        try:
            data = self.site.raw_api(action, http_method, retry_on_error=False, **params)
        except requests.HTTPError as exc:
            response = exc.response
            status = response.status_code if response is not None else 0
            error = WikiUnavailable(http_failure(self.settings.api_url, action, response))
            if status not in RETRYABLE_HTTP:
                raise error from exc
            return error, _retry_after(response)
        except requests.Timeout:
            return WikiUnavailable(timeout_failure(self.settings.api_url, action, self.site.requests["timeout"])), None
        except requests.ConnectionError as exc:
            return WikiUnavailable(connection_failure(self.settings.api_url, exc)), None
        except mwclient.errors.MaximumRetriesExceeded:
            # mwclient saw an X-Database-Lag header (maxlag) and would sleep; we decide instead.
            return WikiUnavailable(f"the wiki is lagged (maxlag) on {action}"), _retry_after(self._last_response)
        except mwclient.errors.APIDisabledError as exc:
            raise WikiApiError("api-disabled", "the API is disabled on this wiki") from exc
        except mwclient.errors.InvalidResponse as exc:
            snippet = (exc.response_text or "")[:80].replace("\n", " ")
            return WikiGarbage(f"the wiki answered {action} with something that is not JSON: {snippet!r}"), None
        if not isinstance(data, dict):
            return WikiGarbage(f"the wiki answered {action} with JSON that is not an object"), None
        error = data.get("error")
        if error is not None:
            code = str(error.get("code", "")) if isinstance(error, dict) else ""
            info = str(error.get("info", "")) if isinstance(error, dict) else str(error)
            if code in RETRYABLE_API_CODES:
                return WikiUnavailable(f"the wiki said {code}: {info}"), _retry_after(self._last_response)
            raise WikiApiError(code or "unknown", info)
        for module, warning in (data.get("warnings") or {}).items():
            log.warning("API warning from %s: %s", module, warning)
        return data, None

    def query(self, *, http_method: str = "GET", **params: Any) -> Iterator[dict[str, Any]]:
        """Every response of a query, following `continue` to the end."""
        base = {"continue": "", **params}
        request = dict(base)
        while True:
            data = self.call("query", http_method=http_method, **request)
            yield data
            cont = data.get("continue")
            if not cont:
                return
            if not isinstance(cont, dict):
                raise WikiGarbage("the wiki sent a malformed continue block")
            request = {**base, **cont}


def merge_pages(responses: Iterator[dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """Pages of all responses by page id (missing pages by title); a page that arrives in two
    responses (its revisions in one, its templates in the next) is merged into one."""
    pages: dict[int | str, dict[str, Any]] = {}
    for data in responses:
        query = data.get("query") or {}
        if not isinstance(query, dict):
            raise WikiGarbage("the wiki sent a query block that is not an object")
        for page in query.get("pages") or []:
            # A page id that does not exist comes back as {"pageid": N, "missing": true}.
            if not isinstance(page, dict) or not (page.get("pageid") or page.get("title")):
                raise WikiGarbage("the wiki sent a page with neither an id nor a title")
            key: int | str = page["pageid"] if page.get("pageid") else page["title"]
            known = pages.setdefault(key, {})
            for name, value in page.items():
                if isinstance(value, list) and isinstance(known.get(name), list):
                    known[name] = known[name] + [v for v in value if v not in known[name]]
                else:
                    known[name] = value
    return pages
