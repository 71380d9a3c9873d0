"""Publish a built mirror folder to S3-compatible object storage (`--out s3://BUCKET/PREFIX`).

Object storage has no rename, so a publish cannot be one atomic swap. What a reader sees:
each object is always whole (every PUT is atomic), and a reader never finds an index
document (`INDEX_DOCUMENTS`: the API's lists, the manifest and status, the front page and
the report) naming a file that is not there yet, because the order is

1. every new or changed object but the index documents;
2. the index documents;
3. the deletions of what the mirror no longer has.

Between steps a reader may see new pages before the lists name them, and, after step 2,
may follow an old list to a page deleted in step 3 (a 404 for a page that was removed).
A failure part-way leaves the previous index documents in place; the next run compares
again and finishes the job.

An object is unchanged when the SHA-256 kept in its metadata (`x-amz-meta-sha256`) is the
local file's, never by size or time. Reading that digest costs a HEAD per object, so the
digests of the objects this publisher wrote are remembered (`RECORD`, in the local mirror
folder's parent) with the ETag the store gave them: an object whose listed ETag is still the
remembered one needs no HEAD. Anything else (an object written by someone else, a lost
record) is checked with a HEAD.

Two runs publishing to one prefix: a lock object (`LOCK_KEY`) is created with a conditional
PUT (`If-None-Match: *`), so the second is refused at once. The lock is deleted however the
publish ends; when even that fails (the network that cut the publish is still down), the
next run takes it over at once, with a warning, if no run can be holding it: its holder is a
process of this host that is no longer running (or this very process, whose publish
ended), or it is dated more than `LOCK_CLOCK_SKEW` after the store received it. Any other
lock is taken over once it is `LOCK_STALE` seconds old (a run killed on another host).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bridgeshape_mirror.serving.file_types import media_type
from bridgeshape_mirror.store.lock import HUNG_AFTER

from .publish import PublishError

log = logging.getLogger(__name__)

#: Uploaded last, so that no reader finds one naming a file not uploaded yet.
INDEX_DOCUMENTS = (
    "api/list.json",
    "api/listall.json",
    "api/manifest.json",
    "api/status.json",
    "index.html",
    "report/report.json",
    "report/index.html",
)
LOCK_KEY = ".bridgeshape-mirror.lock"
#: A lock this old was left by a run that died: a run takes at most its deadline and build.
LOCK_STALE = HUNG_AFTER.total_seconds()
#: How much later than the store received it a lock may say it was taken: S3 refuses a
#: request signed more than 15 minutes off its own clock, so no run it let write the lock
#: dates it later than that (docs/DECISIONS.md).
LOCK_CLOCK_SKEW = 900.0
#: `Cache-Control` of every object: clients poll often, and cron updates every few minutes.
DEFAULT_MAX_AGE = 300
#: The metadata key that holds an object's SHA-256.
DIGEST_KEY = "sha256"

class BucketError(PublishError):
    """The bucket could not be published to: the message names the bucket and the object."""


class BucketLocked(Exception):
    """Another run is publishing to the same bucket and prefix."""


@dataclass(frozen=True)
class BucketTarget:
    """`s3://bucket/prefix`: the objects are `prefix/<path of the mirror file>`."""

    bucket: str
    prefix: str = ""
    endpoint_url: str | None = None
    max_age: int = DEFAULT_MAX_AGE

    @classmethod
    def parse(cls, url: str, endpoint_url: str | None = None, max_age: int = DEFAULT_MAX_AGE) -> BucketTarget:
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError(f"{url!r} is not s3://BUCKET or s3://BUCKET/PREFIX")
        if parts.query or parts.fragment:
            raise ValueError(f"{url!r}: an s3:// URL has no query or fragment")
        prefix = parts.path.strip("/")
        if prefix and any(part in ("", ".", "..") for part in prefix.split("/")):
            raise ValueError(f"{url!r}: the prefix has an empty, '.' or '..' part")
        return cls(parts.netloc, prefix, endpoint_url, max_age)

    def key(self, path: str) -> str:
        return f"{self.prefix}/{path}" if self.prefix else path

    def remembered_as(self, key: str) -> str:
        """How the publisher's record names the object `key` of this bucket."""
        return f"{self.bucket}/{key}"

    def __str__(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"


def is_bucket_url(text: str) -> bool:
    return text.startswith("s3://")


def record_path(out: Path) -> Path:
    """Beside the local mirror folder `out`: the digest and ETag of every object written."""
    return out.parent / f".{out.name}.s3-objects.json"


@dataclass(frozen=True)
class BucketPublishResult:
    uploaded: int
    unchanged: int
    deleted: int
    bytes_sent: int
    #: HEAD requests made to read digests the record did not have.
    checked: int


def make_client(target: BucketTarget) -> Any:
    """A boto3 client with the usual credentials chain (environment, profile, instance role)."""
    import boto3
    from botocore.config import Config

    config = Config(retries={"max_attempts": 4, "mode": "standard"}, connect_timeout=10, read_timeout=60)
    return boto3.client("s3", endpoint_url=target.endpoint_url, config=config)


def _errors() -> tuple[type[BaseException], ...]:
    from botocore.exceptions import BotoCoreError, ClientError

    return (BotoCoreError, ClientError)


def _code(exc: BaseException) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _failure(target: BucketTarget, action: str, key: str, exc: BaseException) -> BucketError:
    return BucketError(f"cannot publish to {target}: {action} of object {key!r} in bucket {target.bucket!r} failed: {exc}")


def publish_folder(
    version: Path,
    manifest: Mapping[str, str],
    target: BucketTarget,
    record: Path,
    client: Any | None = None,
    progress: Callable[[int], None] | None = None,
) -> BucketPublishResult:
    """Make `target` hold exactly the files of the local mirror `version` (`manifest`: each
    file's path and SHA-256, as the local publish wrote them), in the order the module's
    docstring gives. `record` is where the written objects' digests are remembered."""
    client = client or make_client(target)
    errors = _errors()
    with _bucket_lock(client, target, errors):
        listed = _list(client, target, errors)
        remembered = _read_record(record)
        uploads, unchanged, checked = [], 0, 0
        for path, digest in sorted(manifest.items()):
            key = target.key(path)
            etag = listed.get(key)
            if etag is None:
                uploads.append((path, digest))
                continue
            known = remembered.get(target.remembered_as(key))
            if known is not None and known[0] == etag:
                remote = known[1]  # the object is still the one this publisher wrote
            else:
                checked += 1
                remote = _remote_digest(client, target, key, errors)
                if remote is not None:
                    remembered[target.remembered_as(key)] = [etag, remote]
            if remote == digest:
                unchanged += 1
            else:
                uploads.append((path, digest))
        indexes = set(INDEX_DOCUMENTS)
        ordered = [u for u in uploads if u[0] not in indexes] + [u for u in uploads if u[0] in indexes]
        sent, gone = 0, []
        try:
            for path, digest in ordered:
                key = target.key(path)
                try:
                    data = (version / path).read_bytes()
                except OSError as exc:
                    raise BucketError(f"cannot publish to {target}: cannot read the built file {path}: {exc}") from exc
                try:
                    answer = client.put_object(
                        Bucket=target.bucket, Key=key, Body=data, ContentType=media_type(path),
                        CacheControl=f"public, max-age={target.max_age}", Metadata={DIGEST_KEY: digest},
                    )
                except errors as exc:
                    raise _failure(target, "the upload", key, exc) from exc
                remembered[target.remembered_as(key)] = [answer["ETag"], digest]
                sent += len(data)
                if progress is not None:
                    progress(1)
            wanted = {target.key(path) for path in manifest} | {target.key(LOCK_KEY)}
            gone = sorted(key for key in listed if key not in wanted)
            _delete(client, target, gone, errors)
            for key in gone:
                remembered.pop(target.remembered_as(key), None)
        finally:
            _write_record(record, remembered)
    return BucketPublishResult(len(ordered), unchanged, len(gone), sent, checked)


def _list(client: Any, target: BucketTarget, errors: tuple[type[BaseException], ...]) -> dict[str, str]:
    """Key -> ETag of every object under the prefix."""
    prefix = target.key("")
    listed: dict[str, str] = {}
    try:
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=target.bucket, Prefix=prefix):
            for item in page.get("Contents", ()):
                listed[item["Key"]] = item["ETag"]
    except errors as exc:
        raise _failure(target, "the listing", prefix or "/", exc) from exc
    return listed


def _remote_digest(client: Any, target: BucketTarget, key: str, errors: tuple[type[BaseException], ...]) -> str | None:
    try:
        return client.head_object(Bucket=target.bucket, Key=key).get("Metadata", {}).get(DIGEST_KEY)
    except errors as exc:
        if _code(exc) in ("404", "NoSuchKey", "NotFound"):
            return None  # deleted since the listing: upload it
        raise _failure(target, "reading the digest", key, exc) from exc


def _delete(client: Any, target: BucketTarget, keys: list[str], errors: tuple[type[BaseException], ...]) -> None:
    for start in range(0, len(keys), 1000):  # DeleteObjects takes at most 1,000 keys
        batch = keys[start : start + 1000]
        try:
            answer = client.delete_objects(
                Bucket=target.bucket, Delete={"Objects": [{"Key": key} for key in batch], "Quiet": True}
            )
        except errors as exc:
            raise _failure(target, "the deletion", batch[0], exc) from exc
        failed = answer.get("Errors") or []
        if failed:
            first = failed[0]
            raise BucketError(
                f"cannot publish to {target}: the deletion of object {first.get('Key')!r} in bucket "
                f"{target.bucket!r} failed: {first.get('Code')} {first.get('Message', '')}".rstrip()
            )


def _read_record(record: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no record (or a damaged one): every listed object gets a HEAD
    return {k: v for k, v in data.items() if isinstance(v, list) and len(v) == 2} if isinstance(data, dict) else {}


def _write_record(record: Path, remembered: dict[str, list[str]]) -> None:
    temporary = record.with_name(record.name + ".tmp")
    try:
        temporary.write_text(json.dumps(remembered, sort_keys=True, indent=0), encoding="utf-8")
        os.replace(temporary, record)
    except OSError:
        pass  # only a cache: the next run reads the digests from the bucket


#: The tokens of the bucket locks this process holds now: a lock naming this process
#: with another token was left by one of its publishes that ended.
_HELD: set[str] = set()


@dataclass(frozen=True)
class _Holder:
    """What a lock object says of the run that took it."""

    etag: str
    host: str | None
    pid: int | None
    token: str | None
    #: The host's boot (Linux's boot id): a process of an earlier boot is gone.
    boot: str | None
    #: When the run took it (its clock) and when the store received it (the store's).
    since: float
    stored: float | None
    #: False: the object is not a lock this program writes (nothing above is known).
    readable: bool = True

    def __str__(self) -> str:
        return f"pid {self.pid} on {self.host}" if self.host is not None else "unknown"

    def gone(self) -> str | None:
        """Why no run can be holding this lock now, or None."""
        if not self.readable:
            return "it is not a lock this program writes"
        if self.stored is not None and self.since > self.stored + LOCK_CLOCK_SKEW:
            return (f"it is dated {_utc(self.since)}, {_duration(self.since - self.stored)} after the store received it "
                    "(a clock, or the lock, is wrong)")
        if self.host != socket.gethostname() or self.pid is None:
            return None
        if self.boot is not None and _boot_id() is not None and self.boot != _boot_id():
            return "this host has restarted since"
        if self.pid == os.getpid():
            return None if self.token in _HELD else "its holder is this process, whose publish ended"
        return None if _running(self.pid) else "its holder is no longer running"


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip() or None
    except (OSError, ValueError):
        return None


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _utc(moment: float) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(moment))
    except (OverflowError, OSError, ValueError):
        return f"{moment:.0f} s after 1970"


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:,.1f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


@contextmanager
def _bucket_lock(client: Any, target: BucketTarget, errors: tuple[type[BaseException], ...]) -> Iterator[None]:
    key = target.key(LOCK_KEY)
    token = uuid.uuid4().hex
    body = json.dumps(
        {"host": socket.gethostname(), "pid": os.getpid(), "boot": _boot_id(), "since": time.time(), "token": token}
    ).encode()
    etag = _take_lock(client, target, key, body, errors)
    _HELD.add(token)
    finished = False
    try:
        yield
        finished = True
    finally:
        _HELD.discard(token)
        try:
            client.delete_object(Bucket=target.bucket, Key=key, IfMatch=etag)
        except Exception as exc:  # the network that ended the publish may still be down
            log.warning(
                "the lock object %r of %s could not be released (%s): the next run on this host takes it over, "
                "elsewhere after %.0f minutes", key, target, exc, LOCK_STALE / 60,
            )
        else:
            if not finished:
                log.warning("the publish to %s failed part-way; its lock object %r is released, the next run finishes it", target, key)


def _take_lock(client: Any, target: BucketTarget, key: str, body: bytes, errors: tuple[type[BaseException], ...]) -> str:
    for attempt in range(2):
        try:
            return client.put_object(Bucket=target.bucket, Key=key, Body=body, IfNoneMatch="*")["ETag"]
        except errors as exc:
            if _code(exc) not in ("PreconditionFailed", "412", "ConditionalRequestConflict"):
                raise _failure(target, "taking the lock", key, exc) from exc
        holder = _lock_holder(client, target, key, errors)
        if holder is None:
            continue  # released meanwhile
        gone = holder.gone()
        if gone is None and time.time() - holder.since >= LOCK_STALE:
            gone = f"it was taken {_utc(holder.since)} and never released"
        if attempt or gone is None:
            raise BucketLocked(
                f"another run ({holder}) has been publishing to {target} since "
                f"{_utc(holder.since)} (lock object {key!r}); this run published nothing"
            )
        log.warning("taking over the lock object %r of %s left by %s: %s", key, target, holder, gone)
        try:  # unless someone else just did
            client.delete_object(Bucket=target.bucket, Key=key, IfMatch=holder.etag)
        except errors:
            pass
    raise BucketLocked(f"another run is publishing to {target} (lock object {key!r}); this run published nothing")


def _lock_holder(client: Any, target: BucketTarget, key: str, errors: tuple[type[BaseException], ...]) -> _Holder | None:
    try:
        answer = client.get_object(Bucket=target.bucket, Key=key)
        raw = answer["Body"].read()
    except errors as exc:
        if _code(exc) in ("404", "NoSuchKey", "NotFound"):
            return None  # released meanwhile: try again
        raise _failure(target, "reading the lock", key, exc) from exc
    stored = answer.get("LastModified")
    stored_at = stored.timestamp() if stored is not None else None
    try:
        data = json.loads(raw)
        since = float(data["since"])
        pid = data.get("pid")
        if since != since or not (pid is None or (type(pid) is int and pid > 0)):
            raise ValueError("not a lock of ours")
        host, token, boot = (str(data[k]) if data.get(k) is not None else None for k in ("host", "token", "boot"))
        return _Holder(answer["ETag"], host, pid, token, boot, since, stored_at)
    except (ValueError, KeyError, TypeError, AttributeError):
        return _Holder(answer["ETag"], None, None, None, None, 0.0, stored_at, readable=False)
