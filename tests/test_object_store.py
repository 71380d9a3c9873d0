"""Publishing the mirror to S3-compatible object storage, against a real S3 API server on
127.0.0.1 (moto's standalone server): first, idle, one-change and one-removal publishes, a
failure part-way, and two runs at once. The calls the publisher makes are counted by a
botocore event hook, beside what the bucket itself then holds."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bridgeshape_mirror import cli
from bridgeshape_mirror.exit_codes import ExitCode
from bridgeshape_mirror.site_builder.build import BuildSettings, build
from bridgeshape_mirror.serving.file_types import media_type
from bridgeshape_mirror.site_builder.object_store import (
    INDEX_DOCUMENTS,
    LOCK_KEY,
    BucketError,
    BucketLocked,
    BucketTarget,
    make_client,
    publish_folder,
)
from bridgeshape_mirror.site_builder.publish import current_version, published_manifest
from bridgeshape_mirror.store.state import StateStore
from bridgeshape_mirror.sync.dump import sync_from_dump
from bridgeshape_mirror.sync.syncer import SyncSettings

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample-wiki.xml"


# --- without a server ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "bucket", "prefix"),
    [("s3://b", "b", ""), ("s3://b/", "b", ""), ("s3://b/mirror", "b", "mirror"), ("s3://b/a/b/", "b", "a/b")],
)
def test_bucket_urls(url, bucket, prefix):
    target = BucketTarget.parse(url)
    assert (target.bucket, target.prefix) == (bucket, prefix)
    assert target.key("api/list.json") == (f"{prefix}/api/list.json" if prefix else "api/list.json")


@pytest.mark.parametrize("url", ["s3://", "http://b/x", "s3://b/a//c", "s3://b/../x", "s3://b/x?y=1"])
def test_bad_bucket_urls_are_refused(url):
    with pytest.raises(ValueError):
        BucketTarget.parse(url)


def test_content_types_are_the_ones_serve_sends():
    """One table (`serving.file_types`): an object's type is what `serve` answers for its file."""
    from bridgeshape_mirror.serving.static_files import content_type as served_type

    paths = ["api/list.json", "index.html", "deals/42.pbn", "deals/42.lin", "scripts/42/1.dlr", "scripts/42/1.tcl",
             "nginx/errors/missingtitle.ssi", "nginx/bridgeshape-api.conf", "style.css", "filter.js", "x.unknownsuffix"]
    assert [media_type(p) for p in paths] == [served_type(Path(p)) for p in paths]
    assert media_type("deals/42.pbn") == media_type("scripts/42/1.tcl") == "text/plain; charset=utf-8"
    assert media_type("nginx/errors/missingtitle.ssi") == "application/json; charset=utf-8"
    assert media_type("x.unknownsuffix") == "application/octet-stream"


def test_options_for_a_bucket_are_checked_before_any_work(tmp_path, capsys):
    state = tmp_path / "state.sqlite"
    assert cli.main(["build", "--state", str(state), "--out", "s3://b/x?y"]) == ExitCode.USAGE
    assert "out:" in capsys.readouterr().err
    code = cli.main(["build", "--state", str(state), "--out", str(tmp_path / "o"), "--endpoint-url", "http://x"])
    assert code == ExitCode.USAGE
    assert "s3://" in capsys.readouterr().err
    code = cli.main(["build", "--state", str(state), "--out", str(tmp_path / "o"), "--nginx-origin", "http://127.0.0.1:9000/b"])
    assert code == ExitCode.USAGE
    assert "nginx_origin" in capsys.readouterr().err
    code = cli.main(["build", "--state", str(state), "--out", "s3://b/x", "--nginx-origin", "s3://b/x"])
    assert code == ExitCode.USAGE
    assert "nginx_origin: the nginx origin must be an http(s) URL" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# --- against the server -------------------------------------------------------------------


class Calls:
    """The S3 operations the publisher's clients make, by name; `fail_put` fails the n-th PUT."""

    def __init__(self):
        import boto3

        self.counts: Counter[str] = Counter()
        self.fail_put: int | None = None
        boto3.DEFAULT_SESSION.events.register("before-call.s3", self._seen)

    def _seen(self, model, **kwargs):
        self.counts[model.name] += 1
        if model.name == "PutObject" and self.fail_put is not None and self.counts["PutObject"] == self.fail_put:
            from botocore.exceptions import EndpointConnectionError

            raise EndpointConnectionError(endpoint_url="http://injected-failure")

    def reset(self):
        self.counts.clear()


@pytest.fixture(scope="module")
def dealt_state(tmp_path_factory) -> Path:
    """The sample synced and built once (to a folder), so each test's builds reuse its deals."""
    base = tmp_path_factory.mktemp("dealt")
    state = base / "state.sqlite"
    with StateStore(state) as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    build(state, BuildSettings(out=base / "output", deals=2, dd_budget=0))
    return state


@pytest.fixture
def state(dealt_state, tmp_path) -> Path:
    copy = tmp_path / "state.sqlite"
    shutil.copyfile(dealt_state, copy)
    return copy


def _settings(tmp_path: Path, s3_server: str, bucket: str) -> BuildSettings:
    target = BucketTarget.parse(f"s3://{bucket}/mirror", s3_server)
    return BuildSettings(out=tmp_path / "stage", deals=2, bucket=target, dd_budget=0)


def _objects(client, bucket: str) -> dict[str, str]:
    """Key -> ETag of every object in the bucket."""
    out = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        out.update({item["Key"]: item["ETag"] for item in page.get("Contents", ())})
    return out


def _body(client, bucket: str, key: str) -> bytes:
    return client.get_object(Bucket=bucket, Key=key)["Body"].read()


def _edit_one_page(tmp_path: Path, state: Path) -> None:
    """A new revision of Apertura 1SA (page 4) on the wiki, synced."""
    edited = _edited_dump(
        tmp_path, "| shape_constraints = opener shape:balanced hcp:15-17\n",
        "| shape_constraints = opener shape:balanced hcp:14-16\n", ("<id>1004</id>", "<id>2004</id>"),
    )
    with StateStore(state) as store:
        sync_from_dump(edited, store, SyncSettings())


def _edited_dump(tmp_path: Path, old: str, new: str, revision: tuple[str, str] | None = None) -> Path:
    text = SAMPLE.read_text(encoding="utf-8")
    assert text.count(old) == 1
    text = text.replace(old, new)
    if revision:
        assert text.count(revision[0]) == 1
        text = text.replace(*revision)
    path = tmp_path / "edited.xml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.slow
def test_first_and_idle_publish(tmp_path, s3_server, s3, state):
    client, bucket = s3
    calls = Calls()
    origin = f"{s3_server}/{bucket}/mirror"
    settings = dataclasses.replace(_settings(tmp_path, s3_server, bucket), nginx_origin=origin)

    report = build(state, settings)
    local = published_manifest(settings.out)
    objects = _objects(client, bucket)
    assert set(objects) == {f"mirror/{path}" for path in local}  # the lock is gone, nothing else
    assert report.bucket.uploaded == len(local) == calls.counts["PutObject"] - 1  # and the lock's PUT
    head = client.head_object(Bucket=bucket, Key="mirror/api/list.json")
    assert head["ContentType"] == "application/json; charset=utf-8"
    assert head["CacheControl"] == "public, max-age=300"
    assert head["Metadata"]["sha256"] == local["api/list.json"]
    assert json.loads(_body(client, bucket, "mirror/api/list.json"))["pages"]
    # The snippet in the bucket reads the bucket (tests/test_nginx_dropin.py runs one).
    snippet = _body(client, bucket, "mirror/nginx/bridgeshape-api.conf").decode("utf-8")
    assert f"set $bridgeshape_mirror '{origin}';" in snippet and "proxy_pass $bridgeshape_mirror/api/list.json;" in snippet
    missing = json.loads(_body(client, bucket, "mirror/nginx/errors/missingtitle.json"))
    assert missing["error"]["code"] == "missingtitle" and missing["error"]["*"].startswith("See ")  # MediaWiki's docref

    calls.reset()
    again = build(state, settings)
    assert again.bucket.uploaded == 0 and again.bucket.deleted == 0 and again.bucket.checked == 0
    # Only the lock was written: the idle publish sends no object.
    assert calls.counts["PutObject"] == 1 and calls.counts["HeadObject"] == 0
    assert _objects(client, bucket) == objects
    assert "0 objects uploaded" in again.summary()


@pytest.mark.slow
def test_without_the_record_every_object_is_compared_by_its_digest(tmp_path, s3_server, s3, state):
    client, bucket = s3
    settings = _settings(tmp_path, s3_server, bucket)
    build(state, settings)
    # The same content under an edit that keeps the size must still be found out: an
    # object changed in the bucket behind the publisher's back is uploaded again.
    key = "mirror/api/list.json"
    original = _body(client, bucket, key)
    tampered = original.replace(b"Splinter", b"Splintex")
    assert len(tampered) == len(original) and tampered != original
    client.put_object(Bucket=bucket, Key=key, Body=tampered)
    for record in tmp_path.glob(".stage.s3-objects.json"):
        record.unlink()
    calls = Calls()
    report = build(state, settings)
    assert report.bucket.uploaded == 1 and report.bucket.checked == len(published_manifest(settings.out))
    assert calls.counts["PutObject"] == 2  # the lock and the tampered object
    assert _body(client, bucket, key) == original


def _without_page(tmp_path: Path, title: str) -> Path:
    text = SAMPLE.read_text(encoding="utf-8")
    start = text.index(f"  <page>\n    <title>{title}</title>")
    end = text.index("</page>", start) + len("</page>\n")
    path = tmp_path / "removed.xml"
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    return path


def _record_calls() -> list[tuple[str, str]]:
    import boto3

    calls: list[tuple[str, str]] = []
    boto3.DEFAULT_SESSION.events.register(
        "provide-client-params.s3", lambda model, params, **kw: calls.append((model.name, params.get("Key", "")))
    )
    return calls


@pytest.mark.slow
def test_one_page_changed_and_one_removed(tmp_path, s3_server, s3, state):
    client, bucket = s3
    settings = _settings(tmp_path, s3_server, bucket)
    build(state, settings)
    before = published_manifest(settings.out)

    _edit_one_page(tmp_path, state)
    calls = _record_calls()
    report = build(state, settings)
    after = published_manifest(settings.out)
    put = {key for name, key in calls if name == "PutObject"} - {f"mirror/{LOCK_KEY}"}
    # Exactly the files whose bytes changed: the page's own, and the indexes that name it.
    assert put == {f"mirror/{p}" for p, digest in after.items() if before.get(p) != digest}
    assert {"mirror/api/get/pageid/4.json", "mirror/api/get/title/Apertura_1SA.json", "mirror/api/status.json"} <= put
    assert "mirror/api/get/pageid/42.json" not in put and "mirror/deals/42.pbn" not in put
    assert report.bucket.uploaded == len(put) and report.bucket.deleted == 0

    # The page removed from the wiki: its objects go, after the indexes that no longer name it.
    with StateStore(state) as store:
        sync_from_dump(_without_page(tmp_path, "Apertura 1SA"), store, SyncSettings())
    calls = _record_calls()
    report = build(state, settings)
    final = _objects(client, bucket)
    assert set(final) == {f"mirror/{p}" for p in published_manifest(settings.out)}
    assert "mirror/api/get/pageid/4.json" not in final and report.bucket.deleted >= 2
    deletes = [i for i, (name, _) in enumerate(calls) if name == "DeleteObjects"]
    index_puts = [i for i, call in enumerate(calls) if call == ("PutObject", "mirror/api/listall.json")]
    assert deletes and index_puts and max(index_puts) < min(deletes)
    # and every index was uploaded after every other object
    puts = [key for name, key in calls if name == "PutObject" and key != f"mirror/{LOCK_KEY}"]
    first_index = min(i for i, key in enumerate(puts) if key.removeprefix("mirror/") in INDEX_DOCUMENTS)
    assert all(key.removeprefix("mirror/") in INDEX_DOCUMENTS for key in puts[first_index:])


@pytest.mark.slow
def test_a_failure_part_way_keeps_the_old_indexes_and_the_next_run_finishes(tmp_path, s3_server, s3, capsys, state):
    client, bucket = s3
    settings = _settings(tmp_path, s3_server, bucket)
    build(state, settings)
    old_list = _body(client, bucket, "mirror/api/list.json")
    old_listall = _body(client, bucket, "mirror/api/listall.json")

    _edit_one_page(tmp_path, state)
    calls = Calls()
    calls.fail_put = 3  # the lock, one object, then the network goes
    with pytest.raises(BucketError) as failure:
        build(state, settings)
    message = str(failure.value)
    assert bucket in message and "mirror/" in message and "injected-failure" in message
    assert _body(client, bucket, "mirror/api/list.json") == old_list
    assert _body(client, bucket, "mirror/api/listall.json") == old_listall
    assert f"mirror/{LOCK_KEY}" not in _objects(client, bucket)  # released on the way out

    calls.fail_put = None
    report = build(state, settings)
    assert report.bucket.uploaded >= 1
    local = published_manifest(settings.out)
    assert {k: v for k, v in _objects(client, bucket).items()}.keys() == {f"mirror/{p}" for p in local}
    for path, digest in local.items():
        assert client.head_object(Bucket=bucket, Key=f"mirror/{path}")["Metadata"]["sha256"] == digest

    # The CLI's word for it: exit 6 (the publish), naming the bucket and the object.
    calls.reset()
    calls.fail_put = 2
    with StateStore(state) as store:
        sync_from_dump(SAMPLE, store, SyncSettings())
    code = cli.main([
        "build", "--state", str(state), "--out", f"s3://{bucket}/mirror", "--endpoint-url", s3_server,
        "--stage", str(settings.out), "--deals", "2", "--no-dd",
    ])
    assert code == ExitCode.BUILD_ERROR
    assert f"bucket {bucket!r}" in capsys.readouterr().err


@pytest.mark.slow
def test_two_runs_at_once(tmp_path, s3_server, s3, capsys, state):
    client, bucket = s3
    settings = _settings(tmp_path, s3_server, bucket)
    lock = f"mirror/{LOCK_KEY}"
    holder = {"host": "elsewhere", "pid": 4242, "since": time.time()}
    client.put_object(Bucket=bucket, Key=lock, Body=json.dumps(holder).encode())
    with pytest.raises(BucketLocked, match="pid 4242 on elsewhere"):
        build(state, settings)
    assert set(_objects(client, bucket)) == {lock}  # nothing published
    code = cli.main([
        "build", "--state", str(state), "--out", f"s3://{bucket}/mirror", "--endpoint-url", s3_server,
        "--stage", str(tmp_path / "stage"), "--deals", "2", "--no-dd",
    ])
    assert code == ExitCode.LOCKED
    assert "lock object" in capsys.readouterr().err

    # A lock left by a run that died long ago is taken over.
    holder["since"] = time.time() - 2 * 3600
    client.put_object(Bucket=bucket, Key=lock, Body=json.dumps(holder).encode())
    report = build(state, settings)
    assert report.bucket.uploaded == len(published_manifest(settings.out))
    assert lock not in _objects(client, bucket)


# --- a publish cut by the network, and the locks no run holds (issue 29) -------------------

#: A publisher in a process of its own whose network goes at its `cut`-th upload (the lock's
#: PUT is the first) and stays down: its lock cannot be deleted, and it exits.
CUT_PUBLISH = """
import sys
from pathlib import Path

from botocore.exceptions import EndpointConnectionError

from bridgeshape_mirror.site_builder import object_store
from bridgeshape_mirror.site_builder.publish import current_version, published_manifest

out, url, endpoint, cut = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
target = object_store.BucketTarget.parse(url, endpoint)


class CutClient:
    def __init__(self, client):
        self.client, self.puts, self.down = client, 0, False

    def __getattr__(self, name):
        method = getattr(self.client, name)

        def call(*args, **kwargs):
            if name == "put_object":
                self.puts += 1
                self.down = self.down or self.puts == cut
            if self.down:
                raise EndpointConnectionError(endpoint_url=endpoint)
            return method(*args, **kwargs)

        return call


object_store.publish_folder(current_version(out), published_manifest(out), target, object_store.record_path(out),
                            client=CutClient(object_store.make_client(target)))
"""


def _wrong_digests(client, bucket: str, local: dict[str, str]) -> list[str]:
    """The files of the local mirror the bucket does not hold as they are (by the digest
    each object carries)."""
    from botocore.exceptions import ClientError

    wrong = []
    for path, digest in local.items():
        try:
            held = client.head_object(Bucket=bucket, Key=f"mirror/{path}")["Metadata"].get("sha256")
        except ClientError:  # not in the bucket yet
            held = None
        if held != digest:
            wrong.append(path)
    return wrong


def _lock_body(client, bucket: str) -> dict:
    return json.loads(_body(client, bucket, f"mirror/{LOCK_KEY}"))


@pytest.mark.slow
def test_a_publish_cut_by_the_network_is_finished_by_the_next_run(tmp_path, s3_server, s3, state, caplog):
    """The reported freeze: a run's network goes mid-upload and stays down, so its lock
    stays in the bucket while the bucket holds a mix of new and old files. The next run on
    the same host sees the lock's process is gone, takes the lock over at once with a
    warning, and finishes the publish: every digest right, no lock left."""
    client, bucket = s3
    settings = _settings(tmp_path, s3_server, bucket)
    build(state, settings)
    _edit_one_page(tmp_path, state)
    build(state, dataclasses.replace(settings, bucket=None))  # the new mirror, built but not yet in the bucket
    local = published_manifest(settings.out)
    before = _wrong_digests(client, bucket, local)
    assert len(before) > 2

    cut = subprocess.run([sys.executable, "-c", CUT_PUBLISH, str(settings.out), f"s3://{bucket}/mirror", s3_server, "3"],
                         capture_output=True, text=True, timeout=120)
    assert cut.returncode != 0 and "BucketError" in cut.stderr, cut.stderr
    holder = _lock_body(client, bucket)
    assert holder["host"] == socket.gethostname() and holder["pid"] != os.getpid()
    half_done = _wrong_digests(client, bucket, local)
    assert 0 < len(half_done) < len(before)  # one object uploaded, then the network went

    caplog.set_level(logging.WARNING)
    code = cli.main([
        "build", "--state", str(state), "--out", f"s3://{bucket}/mirror", "--endpoint-url", s3_server,
        "--stage", str(settings.out), "--deals", "2", "--no-dd",
    ])
    assert code == ExitCode.OK
    assert "could not be released" in cut.stderr  # the cut run said what it left behind
    takeovers = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "taking over the lock" in r.getMessage()]
    assert takeovers == [f"taking over the lock object 'mirror/{LOCK_KEY}' of s3://{bucket}/mirror left by pid {holder['pid']} "
                         f"on {holder['host']}: its holder is no longer running"]
    assert _wrong_digests(client, bucket, published_manifest(settings.out)) == []
    assert set(_objects(client, bucket)) == {f"mirror/{p}" for p in published_manifest(settings.out)}


class _FailingClient:
    """The publisher's boto3 client with a fault: the `cut`-th upload raises a connection
    error and, with `stays_down`, so does every call after it."""

    def __init__(self, client, cut: int, stays_down: bool):
        self.client, self.cut, self.stays_down, self.puts, self.down = client, cut, stays_down, 0, False

    def __getattr__(self, name):
        method = getattr(self.client, name)

        def call(*args, **kwargs):
            from botocore.exceptions import EndpointConnectionError

            if name == "put_object":
                self.puts += 1
                if self.puts == self.cut:
                    self.down = self.stays_down
                    raise EndpointConnectionError(endpoint_url="http://injected-failure")
            if self.down:
                raise EndpointConnectionError(endpoint_url="http://injected-failure")
            return method(*args, **kwargs)

        return call


def _publish(dealt_state: Path, target: BucketTarget, record: Path, client=None, progress=None):
    mirror = dealt_state.parent / "output"
    return publish_folder(current_version(mirror), published_manifest(mirror), target, record, client=client, progress=progress)


@pytest.mark.slow
def test_a_failed_publish_releases_its_lock_and_says_so(tmp_path, s3_server, s3, dealt_state, caplog):
    """Any failure, a connection error or a bug, releases the lock on the way out with a
    warning; a lock this process could not release (the network still down) is taken over
    by its next publish."""
    client, bucket = s3
    target = BucketTarget.parse(f"s3://{bucket}/mirror", s3_server)
    record = tmp_path / "record.json"
    caplog.set_level(logging.WARNING)
    released = f"the publish to s3://{bucket}/mirror failed part-way; its lock object 'mirror/{LOCK_KEY}' is released, the next run finishes it"

    with pytest.raises(BucketError, match="injected-failure"):
        _publish(dealt_state, target, record, _FailingClient(make_client(target), 3, stays_down=False))
    assert f"mirror/{LOCK_KEY}" not in _objects(client, bucket)
    assert released in caplog.messages

    def bug(_count):
        raise RuntimeError("a bug in the progress bar")

    caplog.clear()
    with pytest.raises(RuntimeError):
        _publish(dealt_state, target, record, progress=bug)
    assert f"mirror/{LOCK_KEY}" not in _objects(client, bucket)
    assert released in caplog.messages

    caplog.clear()
    with pytest.raises(BucketError):
        _publish(dealt_state, target, record, _FailingClient(make_client(target), 3, stays_down=True))
    assert f"mirror/{LOCK_KEY}" in _objects(client, bucket)
    assert any("could not be released" in m for m in caplog.messages)
    caplog.clear()
    result = _publish(dealt_state, target, record)
    assert result.uploaded > 0
    assert any(m.endswith(": its holder is this process, whose publish ended") for m in caplog.messages)
    assert _wrong_digests(client, bucket, published_manifest(dealt_state.parent / "output")) == []
    assert f"mirror/{LOCK_KEY}" not in _objects(client, bucket)


@pytest.mark.slow
def test_a_lock_dated_in_the_future_is_taken_over_and_a_live_one_is_not(tmp_path, s3_server, s3, dealt_state, caplog):
    client, bucket = s3
    target = BucketTarget.parse(f"s3://{bucket}/mirror", s3_server)
    lock = f"mirror/{LOCK_KEY}"
    record = tmp_path / "record.json"
    caplog.set_level(logging.WARNING)
    # A live process of this host holds it: refused, as a lock of another host is.
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        holder = {"host": socket.gethostname(), "pid": live.pid, "since": time.time()}
        client.put_object(Bucket=bucket, Key=lock, Body=json.dumps(holder).encode())
        with pytest.raises(BucketLocked, match=f"pid {live.pid} on {socket.gethostname()}"):
            _publish(dealt_state, target, record)
    finally:
        live.kill()
        live.wait()
    assert set(_objects(client, bucket)) == {lock}
    # Dated a day ahead (of the store's clock as of this host's): no run could have taken it.
    holder = {"host": "elsewhere", "pid": 4242, "since": time.time() + 86400}
    client.put_object(Bucket=bucket, Key=lock, Body=json.dumps(holder).encode())
    result = _publish(dealt_state, target, record)
    assert result.uploaded == len(published_manifest(dealt_state.parent / "output"))
    assert lock not in _objects(client, bucket)
    assert [m for m in caplog.messages if "taking over" in m] == [
        f"taking over the lock object {lock!r} of s3://{bucket}/mirror left by pid 4242 on elsewhere: it is dated "
        f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(holder['since']))}, 24.0 h after the store received it "
        "(a clock, or the lock, is wrong)"
    ]
    # A few minutes ahead is a clock's skew: still a live run's lock.
    holder["since"] = time.time() + 120
    client.put_object(Bucket=bucket, Key=lock, Body=json.dumps(holder).encode())
    with pytest.raises(BucketLocked):
        _publish(dealt_state, target, record)
