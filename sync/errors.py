"""Named failures of a sync run. The CLI turns each into a message and an exit status."""

from __future__ import annotations


class SyncError(Exception):
    """Base: the run stopped; the state store is as it was before the run."""


class WikiUnavailable(SyncError):
    """Could not get an answer in time: connection refused, timeouts, 5xx, maxlag, 429."""


class WikiGarbage(SyncError):
    """The wiki answered with something that is not the API's JSON."""


class WikiApiError(SyncError):
    """The API answered with an error that retrying will not fix."""

    def __init__(self, code: str, info: str):
        self.code = code
        self.info = info
        super().__init__(f"the wiki's API said {code}: {info}")


class BadSource(SyncError):
    """The source itself is unusable as given (an API URL that is not api.php)."""


class BadSetting(SyncError):
    """A setting of the sync that cannot be used as given (a contact that cannot go into a
    header, a blank template name): a configuration error, found before any request."""


class DumpError(SyncError):
    """The XML export cannot be read."""


class UnknownName(SyncError):
    """The template or category asked for does not exist on the wiki (a configuration error)."""


class FeedError(SyncError):
    """The change feed cannot be listened to as configured (a bad `--listen`, an address in
    use, a wiki host that does not resolve): a configuration error."""
