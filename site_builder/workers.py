"""Worker processes that never outlive the build that started them.

A build killed while dealing (SIGKILL from cron's timeout, an OOM kill) used to leave its
pool workers dealing on, and with them the resource tracker, holding hundreds of MB and
the parent's stderr (so cron, waiting for the output, hung). Each worker therefore asks
Linux to kill it when its parent dies (`PR_SET_PDEATHSIG`), and watches its parent from a
thread as well, for other systems and for a parent that died before the request was made.
The resource tracker exits by itself once every process holding its pipe is gone.
"""

from __future__ import annotations

import atexit
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import ProcessPoolExecutor

#: prctl(2) option: the signal this process gets when its parent thread dies.
_PR_SET_PDEATHSIG = 1
#: How often the watchdog looks at the parent (seconds): the longest a worker outlives it.
WATCH_EVERY = 0.5


def _ask_the_kernel() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watchdog still holds


def _watch(parent: int) -> None:
    stop = threading.Event()
    while not stop.wait(WATCH_EVERY):
        if os.getppid() != parent:
            os._exit(1)  # orphaned: nobody is waiting for this work


def die_with_parent(parent: int) -> None:
    """End this process when `parent`, the pid of the process that made the pool, ends."""
    # Ctrl-C goes to the whole process group: the parent handles it and stops the pool;
    # a worker printing its own KeyboardInterrupt trace would only add noise.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _ask_the_kernel()
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the kernel was asked
    threading.Thread(target=_watch, args=(parent,), name="parent-watchdog", daemon=True).start()


def start_worker(parent: int) -> None:
    """The pool's initializer: `parent` is the pid of the process that made the pool."""
    die_with_parent(parent)
    # A worker ends holding its models, tables and caches: finalizing the interpreter would run
    # the cyclic collector over all of them while the build waits in the pool's shutdown
    # (measured, the sample's two workers: 110-155 ms, 31-42 ms frozen). Frozen at exit, after
    # the work, as the console script does (`bridgeshape_mirror.cli.run`).
    atexit.register(gc.freeze)


def stop(pool: ProcessPoolExecutor) -> None:
    """End `pool` now, running jobs included (the build is being abandoned: a signal, an
    error). `shutdown` alone would wait for every running job to finish."""
    # CPython's own table (3.14 has terminate_workers()); shutdown() forgets it, so read first.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    _quiet_when_it_breaks(getattr(pool, "_executor_manager_thread", None))
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(timeout=5)
    # A worker killed while it wrote its result leaves the manager thread reading the rest of
    # that message for ever: this process holds the pipe's writing end too, so the read never
    # sees the pipe's end, and the interpreter's exit joins that thread (a build stopped by
    # SIGTERM while dealing hung in 1 run of 4 here). With no worker left to write, closing
    # this end ends the read: the thread finds the pool broken and stops.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
    pool.shutdown(wait=False, cancel_futures=True)


def _quiet_when_it_breaks(manager: threading.Thread | None) -> None:
    """The pool's manager thread may trip over the pipes of the workers just killed and print
    a thread traceback after the run's own message (seen once, under load, after SIGTERM):
    for a pool abandoned on purpose that is noise, so its exceptions alone are dropped."""
    if manager is None:
        return
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.thread is not manager:
            previous(args)

    threading.excepthook = hook


class Workers:
    """The build's pool of worker processes, started when first asked for and shared by its
    steps (dealing, then rendering), so the workers' start (numpy, the deal tables, lark) is
    paid once. Leave the `with` block normally and the pool is shut down; by an exception
    (a signal, a failed job) and its workers are ended at once (`stop`)."""

    def __init__(self, workers: int):
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    @property
    def started(self) -> bool:
        return self._pool is not None

    def map(self, fn, items):
        if self._pool is None:
            # spawn, not fork: a forked child can hang on locks the parent's BLAS threads held.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=start_worker, initargs=(os.getpid(),)
            )
        return self._pool.map(fn, items)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if self._pool is None:
            return
        if kind is None:
            self._pool.shutdown()
        else:
            stop(self._pool)
