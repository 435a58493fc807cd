"""A child forked while other threads hold the library's locks gets them free
(:mod:`schemarouter.safety.forksafe`): the trial's service forked a worker while threads served
retrieves, and the child's first retrieve hung forever on the index's lock, copied held.
Each child here answers through a queue; one that does not answer within ``WAIT`` seconds
is killed and the test fails."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest
from forking import WAIT, in_child, retrieving

from schemarouter import SchemaRouter
from schemarouter.index import HashingEncoder, HybridIndex
from schemarouter.index.tokenize import QueryText, TokenizerSettings
from schemarouter.safety import forksafe
from schemarouter.safety.forksafe import ForkSafeLock
from schemarouter.shipped import load_once

from index_helpers import base_routes, registry_with
from servers.library import library_openapi
from servers.user_api import weather_openapi

pytestmark = [
    pytest.mark.skipif(
        "fork" not in multiprocessing.get_all_start_methods(), reason="no fork here"
    ),
    # Python 3.12 warns of any fork in a process with threads: forking so is the point
    pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning"),
]


def holding(lock: ForkSafeLock, seconds: float) -> threading.Thread:
    """A thread that holds ``lock`` for ``seconds`` (it holds it on return)."""
    inside = threading.Event()

    def hold() -> None:
        with lock:
            inside.set()
            time.sleep(seconds)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert inside.wait(WAIT)
    return thread


def test_a_lock_held_by_another_thread_at_the_fork_is_free_in_the_child() -> None:
    for lock in (ForkSafeLock(), ForkSafeLock(reentrant=True)):
        thread = holding(lock, 1.0)
        assert in_child(lambda lock=lock: lock.acquire(timeout=WAIT)) == ("ok", True)
        thread.join()


def test_a_fork_waits_for_a_settled_lock_so_the_child_sees_its_data_whole() -> None:
    lock = ForkSafeLock(settle=True)
    data = [0, 0]
    inside = threading.Event()

    def write() -> None:
        with lock:  # a change in two steps, the fork in between
            data[0] = 1
            inside.set()
            time.sleep(0.3)
            data[1] = 1

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert inside.wait(WAIT)
    answer = in_child(lambda: (lock.acquire(timeout=WAIT), list(data)))
    writer.join()
    assert answer == ("ok", (True, [1, 1]))
    assert lock.acquire(timeout=WAIT)  # the parent's is free again too
    lock.release()


def test_a_thread_that_holds_a_settled_lock_can_fork() -> None:
    lock = ForkSafeLock(settle=True)
    with lock:
        answer = in_child(lambda: lock.acquire(timeout=WAIT))
    assert answer == ("ok", True)
    assert lock.acquire(timeout=WAIT)
    lock.release()


def test_a_fork_waits_only_so_long_for_a_settled_lock(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A holder that keeps a settled lock (against the rule) does not hold the fork up for
    good: after ``SETTLE_SECONDS`` it goes on, says so, and the child gets the lock afresh."""
    monkeypatch.setattr(forksafe, "SETTLE_SECONDS", 0.2)
    lock = ForkSafeLock(settle=True)
    release = threading.Event()
    inside = threading.Event()

    def hold() -> None:  # until the check is done (a fork that waited for it: 120 s)
        with lock:
            inside.set()
            release.wait(120)

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    assert inside.wait(WAIT)
    started = time.monotonic()
    try:
        answer = in_child(lambda: lock.acquire(timeout=WAIT))
        took = time.monotonic() - started
    finally:
        release.set()
    # 0.2 s and a fork here; a fork that waited for the holder would wait its 120 s
    assert answer == ("ok", True) and took < 30, took
    assert "a fork waited 0.2 s for a lock another thread holds" in caplog.text
    thread.join()


def test_a_child_forked_inside_a_search_of_another_thread_searches() -> None:
    """A thread is reading the index's tables (it holds the index's lock) when the process
    forks: the fork waits for it, and the child's search answers as the parent's does."""
    index = HybridIndex.build(registry_with(base_routes()).snapshot(), encoder=HashingEncoder(64))
    expected = [h.route_id for h in index.search("weather forecast", k=3)]
    thread = holding(index._lock, 0.5)
    answer = in_child(lambda: [h.route_id for h in index.search("weather forecast", k=3)])
    thread.join()
    assert answer == ("ok", expected)


def test_a_child_forked_while_a_model_loads_in_another_thread_loads_one() -> None:
    entered, release = threading.Event(), threading.Event()

    def slow() -> str:
        entered.set()
        release.wait(WAIT)
        return "slow"

    loading = threading.Thread(target=load_once, args=("test-forksafe:slow", slow), daemon=True)
    loading.start()
    assert entered.wait(WAIT)
    try:
        answer = in_child(lambda: load_once("test-forksafe:other", lambda: "other"))
    finally:
        release.set()
        loading.join()
    assert answer == ("ok", "other")


def test_children_forked_while_threads_retrieve_answer() -> None:
    """The trial's repro: three threads retrieve on one router (the shipped models) while
    the process forks; each child's retrieve answers as the parent's does."""
    query = "daily weather forecast"
    with retrieving() as router:
        expected = router.retrieve(query, k=2).route_ids
        time.sleep(0.3)
        answers = [in_child(lambda: router.retrieve(query, k=2).route_ids) for _ in range(3)]
    assert answers == [("ok", expected)] * 3


def test_a_child_forked_during_a_registration_registers_and_retrieves() -> None:
    """The registry's writers' lock was a plain ``RLock``: a worker forked while another
    thread registered got it held, and its first registration waited forever."""
    router = SchemaRouter(encoder=HashingEncoder())
    router.add_openapi(library_openapi("http://127.0.0.1:9"), provider="library")
    holder = holding(router.registry.lock, 2.0)

    def job() -> object:
        router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
        return [c.provider for c in router.retrieve("weather forecast for Paris", k=1).candidates]

    assert in_child(job) == ("ok", ["weather"])
    holder.join()


def test_a_child_forked_while_another_thread_is_inside_a_batch_registers_for_good() -> None:
    """Trial C (medium): a worker forked while a reload thread was inside ``router.batch()``
    copied the open batch, whose thread it does not have: each of its own registrations was
    staged into that batch forever: its index never had the new routes, and only a thread
    that happened to get the lost thread's id saw them."""
    router = SchemaRouter(encoder=HashingEncoder())
    router.add_openapi(library_openapi("http://127.0.0.1:9"), provider="library")
    router.build_index()
    inside, leave = threading.Event(), threading.Event()

    def reload() -> None:
        with router.batch():
            router.add_openapi(library_openapi("http://127.0.0.1:8"), provider="library2")
            inside.set()
            leave.wait(WAIT)

    thread = threading.Thread(target=reload, daemon=True)
    thread.start()
    assert inside.wait(WAIT)

    def job() -> object:
        router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
        return (
            sorted({r.provider.id for r in router.snapshot()}),
            [c.provider for c in router.retrieve("weather forecast", k=1).candidates],
        )

    try:
        assert in_child(job) == ("ok", (["library", "weather"], ["weather"]))
    finally:
        leave.set()
        thread.join(WAIT)
    assert sorted({r.provider.id for r in router.snapshot()}) == ["library", "library2"]


def test_the_module_wide_locks_are_free_in_a_child_forked_while_another_thread_holds_them() -> None:
    """``.ci/run`` at e559d81 saw a child forked during a registration give no answer in 60 s
    once: the module-wide locks of registration (the schemas checked once, a shared map's
    order), of a restore and of execution were plain locks, copied held into a child forked
    while another thread of the process (a gateway's reload or warm-up, an upstream
    connecting, a lazy restore) held one; the child's first registration, restore or call
    waited on it forever."""
    from schemarouter import indexing
    from schemarouter.execution import credentials, drivers, policy
    from schemarouter.execution.invokers import mcp_transport
    from schemarouter.registry import compile, shared

    locks = {
        "registry.compile._CHECKED_LOCK": compile._CHECKED_LOCK,
        "registry.shared._ORDER_LOCK": shared._ORDER_LOCK,
        "indexing._RESTORING": indexing._RESTORING,
        "execution.drivers._TLS_LOCK": drivers._TLS_LOCK,
        "execution.invokers.mcp_transport._LIVE_LOCK": mcp_transport._LIVE_LOCK,
        "execution.credentials._GUARD_LOCK": credentials._GUARD_LOCK,
        "execution.policy._MONITORS_LOCK": policy._MONITORS_LOCK,
        "a HealthMonitor's lock": policy.HealthMonitor()._lock,
    }
    for name, lock in locks.items():
        thread = holding(lock, 1.0)
        assert in_child(lambda lock=lock: lock.acquire(timeout=5.0)) == ("ok", True), name
        thread.join()


def test_a_child_forked_while_another_thread_checks_a_schema_registers_and_retrieves() -> None:
    from schemarouter.registry import compile

    router = SchemaRouter(encoder=HashingEncoder())
    router.add_openapi(library_openapi("http://127.0.0.1:9"), provider="library")
    holder = holding(compile._CHECKED_LOCK, 2.0)

    def job() -> object:
        router.add_openapi(weather_openapi("http://127.0.0.1:9"), provider="weather")
        return [c.provider for c in router.retrieve("weather forecast for Paris", k=1).candidates]

    assert in_child(job) == ("ok", ["weather"])
    holder.join()


def test_a_child_forked_while_another_thread_reads_a_requests_words_reads_its_own() -> None:
    """Python 3.11's ``functools.cached_property`` holds one lock per property, for every
    instance, while it computes: a child forked while another thread computed a request's
    ``words`` waited forever on its own request's (1 child in 4,500 of a stress run)."""
    entered, release = threading.Event(), threading.Event()

    class Slow(QueryText):
        def tokens_for(self, settings: TokenizerSettings) -> tuple[str, ...]:
            entered.set()
            release.wait(WAIT)
            return super().tokens_for(settings)

    reading = threading.Thread(
        target=lambda: Slow("weather in Paris", ("weather", "paris")).words, daemon=True
    )
    reading.start()
    assert entered.wait(WAIT)
    try:
        answer = in_child(lambda: sorted(QueryText.of("daily weather forecast").words))
    finally:
        release.set()
        reading.join()
    assert answer == ("ok", sorted(QueryText.of("daily weather forecast").words))
