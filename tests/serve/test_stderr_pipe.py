""":class:`~schemarouter.serve.stderr_pipe.UnblockedStderr` on a real pipe nobody reads, then
read (thirteenth review): no write waits, the lines that fit come out whole and in order,
the rest are counted in one line once the reader reads, and later lines come out again."""

from __future__ import annotations

import os
import threading

from schemarouter.serve.stderr_pipe import UnblockedStderr


def test_writes_to_a_full_pipe_never_wait_and_the_dropped_lines_are_counted() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with open(os.devnull, "w") as original:
        stream = UnblockedStderr(write_end, original, backlog=4096)
        lines = 5000  # ~50 KiB a pipe of 64 KiB holds whole: sent twice over
        writing = threading.Thread(
            target=lambda: [print(f"line {i}", "x" * 20, file=stream) for i in range(2 * lines)]
        )
        writing.start()
        writing.join(60)  # a write that waited for the reader would hang here
        assert not writing.is_alive()
        said: list[str] = []
        with os.fdopen(read_end, "rb") as reader:
            while not said or "lines of stderr dropped" not in said[-1]:
                said.append(reader.readline().decode())
            stream.write("after ")
            stream.write("the reader read\n")
            said.append(reader.readline().decode())
            stream.release()  # closes its pipe's end: later lines go to the original
            stream.write("written to the original stream\n")
    notice, last = said[-2], said[-1]
    kept = [line.split()[1] for line in said[:-2]]
    assert kept == [str(i) for i in range(len(kept))]  # whole, in order, none lost between
    assert int(notice.split(": ")[1].split()[0]) == 2 * lines - len(kept)
    assert last == "after the reader read\n"
