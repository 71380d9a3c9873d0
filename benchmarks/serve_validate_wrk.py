"""Load `serve`'s live validate with wrk on loopback; print requests/s and latency
percentiles; target p99 < 100 ms.

Run: .venv/bin/python benchmarks/serve_validate_wrk.py [--duration 10] [--threads 2] [--connections 16]
Needs Debian's wrk (`apt-get install -y wrk`). Starts `bridgeshape-mirror serve` (or
`python -m bridgeshape_mirror.cli serve` when the console script is not installed) as a
subprocess on a free 127.0.0.1 port over an empty mirror folder, runs wrk for a bounded time against
`api.php?action=bridgeshape&shapeaction=validate&dsl=<a realistic 2-scenario DSL>`, then
stops the server. Exit status 0 when the target is met, 1 when not, 2 when it cannot run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote_plus

REPO = Path(__file__).resolve().parents[1]
DSL = (
    "dopo 1H: fit:H8+ opener H:5+ hcp:12-21; responder x:0-1 xhcp:0 hcp:10-15 // "
    "dopo 1S: fit:S8+ opener S:5+ hcp:12-21; responder x:0-1 xhcp:0 hcp:10-15"
)
TARGET_P99_MS = 100.0
_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_command(out: Path) -> list[str]:
    cli = shutil.which("bridgeshape-mirror") or str(Path(sys.executable).with_name("bridgeshape-mirror"))
    if os.access(cli, os.X_OK):
        probe = subprocess.run([cli, "serve", "--help"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return [cli, "serve", "--out", str(out), "--host", "127.0.0.1", "-q"]
    return [sys.executable, "-m", "bridgeshape_mirror.cli", "serve", "--out", str(out), "--host", "127.0.0.1", "-q"]


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"serve exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("serve did not answer /health in time")


def milliseconds(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", text)
    if not match:
        raise ValueError(f"unreadable wrk latency {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_wrk(output: str) -> dict[str, float]:
    result: dict[str, float] = {}
    for line in output.splitlines():
        line = line.strip()
        percentile = re.fullmatch(r"(50|75|90|99)(?:\.0+)?%\s+(\S+)", line)
        if percentile:
            result[f"p{percentile.group(1)}"] = milliseconds(percentile.group(2))
        elif line.startswith("Requests/sec:"):
            result["rps"] = float(line.split(":", 1)[1])
        elif re.match(r"\d+ requests in", line):
            result["requests"] = float(line.split()[0])
        elif line.startswith("Non-2xx or 3xx responses:"):
            result["non2xx"] = float(line.split(":", 1)[1])
        elif line.startswith("Socket errors:"):
            result["socket_errors"] = float(sum(int(n) for n in re.findall(r"\d+", line)))
    missing = {"rps", "p50", "p90", "p99"} - set(result)
    if missing:
        raise ValueError(f"wrk output without {sorted(missing)}:\n{output}")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds of load (default 10)")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads (default 2)")
    parser.add_argument("--connections", type=int, default=16, help="open connections (default 16)")
    args = parser.parse_args()
    wrk = shutil.which("wrk")
    if wrk is None:
        print("wrk is not installed: apt-get install -y wrk", file=sys.stderr)
        return 2
    query = f"action=bridgeshape&shapeaction=validate&dsl={quote_plus(DSL)}&format=json"
    with tempfile.TemporaryDirectory(prefix="bsm-wrk-") as folder:
        out = Path(folder) / "out"
        (out / "api").mkdir(parents=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        command = serve_command(out)
        server = subprocess.Popen(
            command, cwd=REPO, env={**os.environ, "PORT": str(port)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            wait_healthy(url, server)
            with urllib.request.urlopen(f"{url}/api.php?{query}", timeout=5) as response:
                if b'"valid":true' not in response.read():
                    raise RuntimeError("validate did not answer a valid document")
            print(f"server: {' '.join(Path(command[0]).name if i == 0 else c for i, c in enumerate(command))} on {url}")
            print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} before the run (other work skews p99)")
            print(f"load:   wrk -t{args.threads} -c{args.connections} -d{args.duration}s --latency (validate, 2-scenario DSL)")
            run = subprocess.run(
                [wrk, f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s", "--timeout", "5s", "--latency", f"{url}/api.php?{query}"],
                capture_output=True,
                text=True,
                timeout=args.duration + 60,
            )
            if run.returncode != 0:
                print(run.stdout + run.stderr, file=sys.stderr)
                return 2
            numbers = parse_wrk(run.stdout)
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            print(f"benchmark could not run: {exc}", file=sys.stderr)
            return 2
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
            if server.stderr:
                server.stderr.close()
    errors = int(numbers.get("non2xx", 0) + numbers.get("socket_errors", 0))
    print(f"requests: {int(numbers.get('requests', 0))} in {args.duration}s, {numbers['rps']:.0f} requests/s, errors: {errors}")
    print(f"latency:  p50 {numbers['p50']:.2f} ms, p90 {numbers['p90']:.2f} ms, p99 {numbers['p99']:.2f} ms")
    passed = numbers["p99"] < TARGET_P99_MS and errors == 0
    print(f"target:   p99 < {TARGET_P99_MS:.0f} ms and no errors: {'PASS' if passed else 'FAIL'}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
