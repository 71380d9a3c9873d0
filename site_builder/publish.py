"""Publish a built mirror atomically: readers see the old mirror or the new one, never a mix.

The output folder is a symbolic link to a version folder beside it
(`.<name>.versions/<id>`). A build writes a new version folder, then replaces the link with
one `rename`, which is atomic on POSIX file systems. A file whose bytes did not change is
hard-linked from the current version instead of written again; if nothing changed at all,
nothing is written and the link is left alone. A build killed midway leaves a half-written
version folder that the link never pointed to; the next publish deletes it.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = ".manifest.json"
#: Versions kept besides the published one, so a reader that opened the previous one can finish.
KEEP_OLD = 1
#: How long a publish waits for another one to the same folder (seconds).
LOCK_WAIT = 120.0


class PublishError(Exception):
    """The output folder cannot be published to (not ours, or not writable)."""


@dataclass(frozen=True)
class Reused:
    """A file the current version already holds with this digest: linked, not rendered."""

    digest: str


@dataclass(frozen=True)
class PublishResult:
    changed: bool
    written: int
    linked: int
    removed: int
    version: Path


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def versions_dir(out: Path) -> Path:
    return out.parent / f".{out.name}.versions"


def current_version(out: Path) -> Path | None:
    if not out.is_symlink():
        return None
    target = out.parent / os.readlink(out)
    return target if target.is_dir() else None


def _manifest(version: Path | None) -> dict[str, str]:
    if version is None:
        return {}
    try:
        return json.loads((version / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def published_manifest(out: Path) -> dict[str, str]:
    """Path -> digest of every file of the published mirror (empty when there is none)."""
    return _manifest(current_version(Path(os.path.abspath(out))))


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


@contextmanager
def _output_lock(out: Path) -> Iterator[None]:
    """The output folder's own lock, whatever the state store: two stores publishing to one
    folder take turns, so one's garbage collection never meets the other's version folder
    half-written (the run lock is per state store and cannot see this). The kernel drops
    it if the process dies."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_path(out), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise PublishError(f"cannot publish to {out}: cannot make its lock file: {exc}") from exc
    try:
        waited_until = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > waited_until:
                    raise PublishError(f"cannot publish to {out}: another build has been publishing to it for {LOCK_WAIT:g} s") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock


def publish(
    out: Path, files: Mapping[PurePosixPath, bytes | Reused], progress: Callable[[int], None] | None = None
) -> PublishResult:
    """`files`: each path's bytes, or `Reused` for a file the published version holds as is.
    `progress` is told of each file placed in the new version (written or linked)."""
    out = Path(os.path.abspath(out))
    with _output_lock(out):
        return _publish(out, files, progress)


def _publish(
    out: Path, files: Mapping[PurePosixPath, bytes | Reused], progress: Callable[[int], None] | None
) -> PublishResult:
    if out.exists() and not out.is_symlink():
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()
        else:
            raise PublishError(f"{out} exists and is not a mirror published by this tool (it must be a symbolic link)")
    current = current_version(out)
    old = _manifest(current)
    manifest = {
        str(path): data.digest if isinstance(data, Reused) else _digest(data)
        for path, data in sorted(files.items(), key=lambda kv: str(kv[0]))
    }
    for path, data in files.items():
        if isinstance(data, Reused) and (current is None or old.get(str(path)) != data.digest):
            raise PublishError(f"cannot publish to {out}: {path} is no longer in the published mirror")
    if current is not None and manifest == old:
        _collect_garbage(out, keep=current)
        return PublishResult(False, 0, 0, 0, current)

    root = versions_dir(out)
    version = root / uuid.uuid4().hex
    written = linked = 0
    try:
        version.mkdir(parents=True)
        folders = {version}  # made: a mkdir per file was a tenth of the time here
        for path, data in files.items():
            if progress is not None:
                progress(1)
            target = version / path
            if target.parent not in folders:
                target.parent.mkdir(parents=True, exist_ok=True)
                folders.add(target.parent)
            name = str(path)
            if current is not None and old.get(name) == manifest[name]:
                try:
                    os.link(current / path, target)
                    linked += 1
                    continue
                except OSError:
                    pass  # a file system without hard links: write it
            if isinstance(data, Reused):
                shutil.copyfile(current / path, target)
            else:
                target.write_bytes(data)
            written += 1
        (version / MANIFEST).write_text(json.dumps(manifest, indent=0, sort_keys=True), encoding="utf-8")
        link = out.parent / f".{out.name}.{version.name}.link"
        os.symlink(os.path.relpath(version, out.parent), link)
        os.replace(link, out)
    except OSError as exc:
        shutil.rmtree(version, ignore_errors=True)
        raise PublishError(f"cannot publish to {out}: {exc}") from exc
    removed = len(old.keys() - manifest.keys())
    _collect_garbage(out, keep=version)
    return PublishResult(True, written, linked, removed, version)


def since(before: Mapping[str, str], result: PublishResult) -> PublishResult:
    """`result`, the last of a build's publishes, counted against the mirror published before
    the build (its manifest `before`), as one publish from it would be."""
    after = _manifest(result.version)
    if after == before:
        return PublishResult(False, 0, 0, 0, result.version)
    written = sum(1 for path, digest in after.items() if before.get(path) != digest)
    return PublishResult(True, written, len(after) - written, len(before.keys() - after.keys()), result.version)


def _collect_garbage(out: Path, keep: Path) -> None:
    """Delete half-written versions (no manifest: a killed build) and all complete old
    versions but the newest `KEEP_OLD`; the published one always stays."""
    root = versions_dir(out)
    if not root.is_dir():
        return
    complete = []
    for folder in root.iterdir():
        if folder == keep or not folder.is_dir():
            continue
        if (folder / MANIFEST).exists():
            complete.append(folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    complete.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in complete[KEEP_OLD:]:
        shutil.rmtree(stale, ignore_errors=True)
    for link in out.parent.glob(f".{out.name}.*.link"):
        link.unlink(missing_ok=True)
