"""A synchronous Python callable that hangs under ``acall`` / ``aexecute``: the call stops
waiting at its timeout, and the hung function holds only its own thread, never the event
loop's default executor that ``aretrieve`` and the host's own ``asyncio.to_thread`` share."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from schemarouter import ExecutionPolicy, SchemaRouter
from schemarouter.errors import InvocationError
from schemarouter.execution.invokers.python import MAX_STRAGGLERS, MAX_THREADS

#: More hung calls than any default executor has workers (``min(32, cpus + 4)``).
HUNG = 33


def test_hung_sync_callables_do_not_starve_aretrieve_or_other_calls() -> None:
    """On 2 cores, six sync callables timed out under ``acall`` (a sensor that never
    answers) held all six workers of the loop's default executor: every later ``aretrieve``
    in the process waited for them (no answer in 5 s), and an instant function's ``acall``
    failed "timed out after 1 s" without having run. Each sync callable now runs in a thread
    of its own."""
    release = threading.Event()

    def read_sensor(sensor_id: str) -> float:
        """Read a warehouse sensor that never answers."""
        release.wait(30)
        return 0.0

    def shelf_count(sku: str) -> int:
        """How many units of a product are on the shelf."""
        return 12

    router = SchemaRouter()
    router.add_callable([read_sensor, shelf_count], provider="shop")
    router.retrieve("warm up the index", k=1)
    policy = ExecutionPolicy(timeout=0.3, max_attempts=1)

    async def hung() -> str:
        try:
            await router.acall("shop/python/read_sensor", {"sensor_id": "S-1"}, policy=policy)
        except InvocationError as exc:
            return str(exc)
        return "answered"

    async def scenario() -> None:
        errors = await asyncio.gather(*(hung() for _ in range(HUNG)))
        assert all("timed out after 0.3 s" in e for e in errors), errors[:2]
        start = time.monotonic()
        found = await asyncio.wait_for(router.aretrieve("units of a product on the shelf"), 5)
        assert found.candidates[0].route_id == "shop/python/shelf_count"
        called = await asyncio.wait_for(
            router.acall("shop/python/shelf_count", {"sku": "SKU-5"}, policy=policy), 5
        )
        assert called.output == 12
        on_thread = await asyncio.wait_for(asyncio.to_thread(lambda: "free"), 5)
        assert on_thread == "free"
        assert time.monotonic() - start < 5

    try:
        asyncio.run(scenario())
    finally:
        release.set()


@pytest.mark.parametrize("offload", ["to_thread", "run_in_executor"])
def test_a_sync_call_of_an_async_tool_waiting_on_a_blocking_thread_stops_at_its_timeout(
    offload: str,
) -> None:
    """An async tool that runs a blocking client in a thread (``await asyncio.to_thread(
    fetch)``, the usual way) and never gets an answer: ``router.call`` with a 1 s timeout
    said "timed out after 1 s" only when the blocking call ended, 6 s later (forever for
    a client that never returns), as the fresh event loop it ran in waited for its
    executor's threads before letting go. It now answers at the timeout."""
    release = threading.Event()

    def fetch() -> float:
        release.wait(8)
        return 1.0

    async def exchange_rate(base: str) -> float:
        """Today's exchange rate of a currency, from an upstream with a blocking client."""
        if offload == "to_thread":
            return await asyncio.to_thread(fetch)
        return await asyncio.get_running_loop().run_in_executor(None, fetch)

    router = SchemaRouter()
    router.add_callable(exchange_rate, provider="fx")
    policy = ExecutionPolicy(timeout=0.5, max_attempts=1)
    start = time.monotonic()
    try:
        with pytest.raises(InvocationError, match=r"timed out after 0\.5 s"):
            router.call("fx/python/exchange_rate", {"base": "EUR"}, policy=policy)
        assert time.monotonic() - start < 3
    finally:
        release.set()


def test_a_hung_callable_called_again_and_again_holds_a_bounded_number_of_threads() -> None:
    """Each ``acall`` of a sync function that never returns timed out and left its thread
    running for good: 3 rounds of 300 calls left 900 threads, growing without end (a
    process then fails to start threads at all). Past ``MAX_STRAGGLERS`` such threads a call
    of that function fails at once, saying why, and its calls start again as they end."""
    release = threading.Event()

    def read_sensor(sensor_id: str) -> float:
        """Read a warehouse sensor that never answers."""
        if not release.wait(30):
            return -1.0
        return 21.5

    router = SchemaRouter()
    router.add_callable(read_sensor, provider="shop")
    policy = ExecutionPolicy(timeout=0.2, max_attempts=1)
    before = threading.active_count()

    async def one() -> str:
        try:
            await router.acall("shop/python/read_sensor", {"sensor_id": "S-1"}, policy=policy)
        except InvocationError as exc:
            return exc.what
        return "answered"

    async def rounds() -> list[str]:
        said: list[str] = []
        for _ in range(3):
            said += await asyncio.gather(*(one() for _ in range(MAX_STRAGGLERS)))
        return said

    try:
        said = asyncio.run(rounds())
        assert said[:MAX_STRAGGLERS] == ["timed out after 0.2 s"] * MAX_STRAGGLERS
        assert all("not started: 32 earlier calls" in s for s in said[MAX_STRAGGLERS:]), said[-1]
        assert threading.active_count() - before <= MAX_STRAGGLERS
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    router.mark_healthy("shop/python/read_sensor")  # its failures opened the breaker
    again = asyncio.run(router.acall("shop/python/read_sensor", {"sensor_id": "S-1"}))
    assert again.output == 21.5


def test_an_async_tool_blocking_its_loop_under_call_holds_a_bounded_number_of_threads() -> None:
    """``router.call`` of an async tool that blocks its own loop (``time.sleep`` or a
    blocking client in an ``async def``) answers at its timeout and leaves that loop's
    thread running: 100 calls (the breaker reset after each) left 100 threads. The same
    bound as ``acall``'s holds."""
    from concurrent.futures import ThreadPoolExecutor

    release = threading.Event()

    async def read_gauge(gauge_id: str) -> float:
        """Read a pressure gauge through a blocking driver."""
        release.wait(30)
        return 1.5

    router = SchemaRouter()
    router.add_callable(read_gauge, provider="plant")
    policy = ExecutionPolicy(timeout=0.1, max_attempts=1, failure_threshold=1000)
    before = threading.active_count()

    def one(_: int) -> str:
        try:
            router.call("plant/python/read_gauge", {"gauge_id": "G-1"}, policy=policy)
        except InvocationError as exc:
            return exc.what
        return "answered"

    try:
        with ThreadPoolExecutor(MAX_STRAGGLERS) as pool:
            said = list(pool.map(one, range(MAX_STRAGGLERS)))
        assert said == ["timed out after 0.1 s"] * MAX_STRAGGLERS
        assert "not started: 32 earlier calls" in one(0)
        assert threading.active_count() - before <= MAX_STRAGGLERS
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert router.call("plant/python/read_gauge", {"gauge_id": "G-1"}).output == 1.5


def test_a_burst_of_sync_calls_runs_on_a_bounded_number_of_threads() -> None:
    """Trial T5 (medium): 2,000 concurrent ``acall`` of a 50 ms sync tool started 1,040-1,179
    threads, one each. At most ``MAX_THREADS`` run at once per event loop; the rest wait for a
    slot within their own timeout, and every call answers."""
    running = 0
    most = 0
    lock = threading.Lock()

    def pick_list(order_id: str) -> dict[str, str]:
        """Print the pick list of an order."""
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.2)
        with lock:
            running -= 1
        return {"order": order_id}

    router = SchemaRouter(embedding_cache=None, abstention=None)
    router.add_callable(pick_list, provider="shop")
    policy = ExecutionPolicy(timeout=30, max_attempts=1)
    before = threading.active_count()
    peak = 0

    async def burst() -> list[object]:
        nonlocal peak

        async def one(i: int) -> object:
            nonlocal peak
            peak = max(peak, threading.active_count())
            result = await router.acall(
                "shop/python/pick_list", {"order_id": f"O-{i}"}, policy=policy
            )
            return result.output

        return await asyncio.gather(*(one(i) for i in range(300)))

    outputs = asyncio.run(burst())
    assert outputs == [{"order": f"O-{i}"} for i in range(300)]
    assert most <= MAX_THREADS, most
    assert peak - before <= MAX_THREADS + 4, (peak, before)


def test_calls_of_a_hung_callable_waiting_for_a_slot_do_not_start_past_the_bound() -> None:
    """Trial U1 (medium): calls of a sync function that never returns, arriving faster than
    they time out (2,000 over about 0.4 s, timeout 0.3 s), each waited for a slot and then
    started a thread, though ``MAX_STRAGGLERS`` of its calls already ran past their
    timeout: 504 threads were left. A call that gets its slot checks the bound again: at
    most ``MAX_THREADS`` run at once and ``MAX_STRAGGLERS`` more start after they hang."""
    release = threading.Event()

    def read_sensor(sensor_id: str) -> float:
        """Read a warehouse sensor that never answers."""
        release.wait(30)
        return 0.0

    router = SchemaRouter(embedding_cache=None, abstention=None)
    router.add_callable(read_sensor, provider="shop")
    policy = ExecutionPolicy(timeout=0.3, max_attempts=1, failure_threshold=100_000)
    before = threading.active_count()

    async def arriving() -> list[str]:
        async def one() -> str:
            try:
                await router.acall("shop/python/read_sensor", {"sensor_id": "S-1"}, policy=policy)
            except InvocationError as exc:
                return exc.what
            return "answered"

        tasks = []
        for i in range(2_000):
            tasks.append(asyncio.create_task(one()))
            if i % 10 == 0:
                await asyncio.sleep(0.002)
        return await asyncio.gather(*tasks)

    try:
        said = asyncio.run(arriving())
        left = threading.active_count() - before
        assert left <= MAX_THREADS + MAX_STRAGGLERS, left
        assert any("not started" in s for s in said)
    finally:
        release.set()


def test_a_call_that_waits_its_whole_timeout_for_a_slot_says_it_never_started() -> None:
    """Trial U1 (medium): with ``MAX_THREADS`` calls of a slow report running, a call of an
    instant function under ``acall`` with a 0.3 s timeout failed "timed out after 0.3 s",
    as if the instant function had hung, and counted toward its route's health. It now
    says it never started, and why."""
    release = threading.Event()

    def slow_report(n: int) -> int:
        """Build the slow monthly report."""
        release.wait(10)
        return n

    def ping(n: int) -> int:
        """Answer a ping at once."""
        return n

    router = SchemaRouter(embedding_cache=None, abstention=None)
    router.add_callable([slow_report, ping], provider="ops")
    long = ExecutionPolicy(timeout=20, max_attempts=1)
    short = ExecutionPolicy(timeout=0.3, max_attempts=1, failure_threshold=1)

    async def scenario() -> tuple[str, int]:
        slow = [
            asyncio.create_task(router.acall("ops/python/slow_report", {"n": i}, policy=long))
            for i in range(MAX_THREADS)
        ]
        await asyncio.sleep(0.2)
        try:
            with pytest.raises(InvocationError) as raised:
                await router.acall("ops/python/ping", {"n": 1}, policy=short)
        finally:
            release.set()
        await asyncio.gather(*slow)
        after = await router.acall("ops/python/ping", {"n": 2}, policy=short)
        return raised.value.what, after.output

    what, output = asyncio.run(scenario())
    assert what.startswith("not started within its timeout of 0.3 s"), what
    assert f"the {MAX_THREADS} sync Python tools" in what
    assert output == 2  # not cooling down: its route did not fail
