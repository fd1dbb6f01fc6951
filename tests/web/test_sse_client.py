"""The load benchmark's watcher client (benchmarks/sse_watchers.py, issue 28) reads every
byte of every event: the chunked framing undone by hand, each event stamped when the read
that completes it arrives, however the reads split the stream."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from sse_watchers import Stream  # noqa: E402

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(data), data)


EVENTS = [
    b"retry: 3000\n\n",
    b'data: {"v":"a:active:3","last":40,"steps":[]}\n\n',
    b": still here\n\n",
    b'data: {"v":"a:active:4","last":41,"first":41,"steps":[{"i":41}]}\n\n',
    b'event: over\ndata: {"v":"a:finished:5","last":42,"steps":[]}\n\n',
]
BODY = HEAD + b"".join(chunk(e) for e in EVENTS) + b"0\r\n\r\n"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, len(BODY)])
def test_every_event_is_read_and_stamped_when_its_last_byte_arrives(size: int) -> None:
    stream = Stream()
    ends = []  # the read in which each event's last byte arrives
    at = len(HEAD)  # where each chunk starts
    for e in EVENTS:
        last = at + len(chunk(e)) - 3  # the event's last byte, before the chunk's CRLF
        ends.append(last // size)
        at += len(chunk(e))
    for k in range(0, len(BODY), size):
        stream.feed(BODY[k : k + size], float(k // size))
    assert stream.events == len(EVENTS)
    assert stream.bytes == len(BODY)
    assert stream.ended
    assert stream.arrivals == [(40, ends[1]), (41, ends[3]), (42, ends[4])]


def test_an_event_split_over_two_chunks_is_one_event() -> None:
    stream = Stream()
    stream.feed(HEAD + chunk(b'data: {"last":7,'), 0.0)
    assert stream.arrivals == []
    stream.feed(chunk(b'"steps":[]}\n') + chunk(b"\n"), 1.0)
    assert stream.arrivals == [(7, 1.0)]
    assert stream.events == 1


def test_an_error_answer_is_refused() -> None:
    with pytest.raises(ConnectionError):
        Stream().feed(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 0.0)
