"""Objects and bytes sent to object storage for the sample wiki's first, idle and one-change
publishes, against a real S3 API server on 127.0.0.1 (moto's standalone server).

    .venv/bin/python benchmarks/s3_publish.py [--deals N]

Prints, per publish, the S3 requests by operation, the objects uploaded and deleted, the
bytes sent and the wall time of the publish step (the build before it is not counted).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SAMPLE = ROOT / "examples" / "sample-wiki.xml"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process, f"http://127.0.0.1:{port}"
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise SystemExit("the S3 server (moto) did not start")
            time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10)
    args = parser.parse_args()
    for name, value in (("AWS_ACCESS_KEY_ID", "bench"), ("AWS_SECRET_ACCESS_KEY", "bench"), ("AWS_DEFAULT_REGION", "us-east-1")):
        os.environ.setdefault(name, value)

    import boto3

    from bridgeshape_mirror.site_builder.build import BuildSettings, build
    from bridgeshape_mirror.site_builder.object_store import BucketTarget, publish_folder, record_path
    from bridgeshape_mirror.site_builder.publish import current_version, published_manifest
    from bridgeshape_mirror.store.state import StateStore
    from bridgeshape_mirror.sync.dump import sync_from_dump
    from bridgeshape_mirror.sync.syncer import SyncSettings

    process, url = _start_server()
    try:
        client = boto3.client("s3", endpoint_url=url)
        client.create_bucket(Bucket="bench")
        calls: Counter[str] = Counter()
        client.meta.events.register("before-call.s3", lambda model, **kw: calls.update([model.name]))
        target = BucketTarget.parse("s3://bench/mirror", url)
        with tempfile.TemporaryDirectory() as folder:
            base = Path(folder)
            state, out = base / "state.sqlite", base / "stage"

            def sync(dump: Path) -> None:
                with StateStore(state) as store:
                    sync_from_dump(dump, store, SyncSettings())

            def publish(name: str) -> None:
                build(state, BuildSettings(out=out, deals=args.deals, dd_budget=0))
                calls.clear()
                started = time.perf_counter()
                result = publish_folder(current_version(out), published_manifest(out), target, record_path(out), client)
                seconds = time.perf_counter() - started
                requests = ", ".join(f"{op} {n}" for op, n in sorted(calls.items()))
                print(
                    f"{name:<11} {result.uploaded:>5} uploaded {result.deleted:>3} deleted {result.unchanged:>5} unchanged "
                    f"{result.bytes_sent:>10,} bytes  {seconds:6.2f} s   requests: {requests}"
                )

            sync(SAMPLE)
            print(f"sample wiki, {args.deals} deals per scenario; load average {os.getloadavg()[0]:.2f}")
            publish("first")
            publish("idle")
            text = SAMPLE.read_text(encoding="utf-8")
            edited = base / "edited.xml"
            edited.write_text(
                text.replace("opener shape:balanced hcp:15-17\n", "opener shape:balanced hcp:14-16\n", 1).replace(
                    "<id>1004</id>", "<id>2004</id>", 1
                ),
                encoding="utf-8",
            )
            sync(edited)
            publish("one change")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
