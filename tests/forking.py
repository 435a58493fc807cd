"""A job run in a forked child, for the fork-safety tests (importable: pytest puts tests/ on
sys.path)."""

from __future__ import annotations

import multiprocessing
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: How long a child has to answer (generous: forking on a loaded machine takes seconds)
WAIT = 60.0


def in_child(job: Callable[[], object], wait: float = WAIT) -> tuple[str, object]:
    """``job()`` in a forked child: ``("ok", its answer)``, ``("error", repr)``, or
    ``("no answer", None)`` where it did not answer within ``wait`` seconds (it is killed)."""
    context = multiprocessing.get_context("fork")
    answers = context.Queue()

    def run() -> None:
        try:
            answers.put(("ok", job()))
        except BaseException as exc:
            answers.put(("error", repr(exc)))

    child = context.Process(target=run, daemon=True)
    child.start()
    try:
        answer: tuple[str, object] = answers.get(timeout=wait)
        return answer
    except queue.Empty:
        return ("no answer", None)
    finally:
        child.join(wait)
        if child.is_alive():
            child.kill()
            child.join()


@contextmanager
def retrieving(threads: int = 3) -> Iterator[Any]:
    """A router of the shipped models over two small OpenAPI documents whose ``threads``
    threads retrieve until the block ends (the fork trial's setup)."""
    from schemarouter import SchemaRouter

    from servers.library import library_openapi
    from servers.user_api import weather_openapi

    router = SchemaRouter(embedding_cache=None)
    router.add_openapi(weather_openapi("https://weather.example.org"))
    router.add_openapi(library_openapi())
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            router.retrieve("weather forecast for a region", k=3)

    running = [threading.Thread(target=spin, daemon=True) for _ in range(threads)]
    for thread in running:
        thread.start()
    try:
        yield router
    finally:
        stop.set()
        for thread in running:
            thread.join()
