"""A job run in a forked child, for the fork-safety tests (importable: pytest puts tests/ on
sys.path)."""

from __future__ import annotations

import multiprocessing
import queue
from collections.abc import Callable

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
