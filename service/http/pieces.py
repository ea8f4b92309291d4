"""httptools' parser fed each read cut where a head ends, with each chunk-size line found and checked.

llhttp reads a chunk size with any number of leading zeros (1,000 of them: served), where h11 stops
at 20 hex digits and a proxy in front may stop elsewhere: one request framed two ways. Both parsers
now refuse a size written in more than `strict.MAX_SIZE_DIGITS` digits (400, `LONG_CHUNK_SIZE`).
httptools tells nothing of where in a read a chunk-size line lies, so `Pieces` follows the framing
itself: a head is fed to llhttp as soon as its end is found (its callbacks tell how its body is
framed, `body`), then the body is walked (a Content-Length, or each size line and chunk) and each
size line checked before llhttp reads it; what follows a head goes in one call up to the next head.
llhttp parses a stream, so where it is cut changes nothing it reads: a misreading here can only
misplace this check, never a byte. Empty lines before a request line are not cut. The request line
of each head is kept as it passes (`request_line`), however it came in pieces, for a check llhttp
does not make (`strict.spaced`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httptools

from service.http.strict import LONG_CHUNK_SIZE, MAX_SIZE_DIGITS, size_digits

_HEAD, _LENGTH, _SIZE, _DATA = range(4)  # (the trailers are read as a head is: to the blank line)
_END = b"\r\n\r\n"
_NOT_CRLF = re.compile(rb"[^\r\n]")
_SIZE_LINE = re.compile(rb"([0-9A-Fa-f]{1,%d})(?![0-9A-Fa-f])[^\n]*\n" % MAX_SIZE_DIGITS)


class Pieces:
    """A httptools request parser whose `feed_data` feeds it in pieces. A chunk size too long is
    told to `refuse` (the reason) and raised as llhttp's own refusals are (`HttpParserError`)."""

    def __init__(self, parser: Any, refuse: Callable[[str], None]) -> None:
        self._parser, self._refuse = parser, refuse
        self._mode, self._left = _HEAD, 0  # `_left`: bytes of the body, or of a chunk's data and CRLF
        self._size = bytearray()  # the chunk size's digits so far (at most MAX_SIZE_DIGITS + 1)
        self._hex = True  # the chunk-size line so far is digits only (more may follow)
        self._held = b""  # a head (or trailers) under way: its last bytes, to find its end across reads
        self._line = bytearray()  # the request line of the head read last (bounded as the head is)
        self._in_line = False  # its end is still to come

    def body(self, chunked: bool, length: int) -> None:
        """The head just read frames its body so (`on_headers_complete`)."""
        self._mode, self._left, self._held = (_SIZE if chunked else _LENGTH if length else _HEAD), length, b""
        self._size.clear()
        self._hex = True

    def request_line(self) -> bytes:
        """The request line (its CRLF included) of the head read last, however it came in pieces."""
        return bytes(self._line)

    def feed_data(self, data: bytes) -> None:
        """Feed `data`: a head as soon as it is cut (its callbacks tell how its body is framed,
        `body`), the rest in as few calls as that allows; each size line checked before it is fed."""
        view, at, fed = memoryview(data), 0, 0
        while at < len(data):
            head = self._mode == _HEAD
            at = self._cut(data, at)
            if head:
                self._parser.feed_data(view[fed:at])
                fed = at
        if fed < len(data):
            self._parser.feed_data(view[fed:])

    def _cut(self, data: bytes, at: int) -> int:
        if self._mode in (_LENGTH, _DATA):
            end = min(len(data), at + self._left)
            self._left -= end - at
            if not self._left:  # the next chunk's size line, or the next message's head
                self.body(self._mode == _DATA, 0)
            return end
        if self._mode == _SIZE:
            return self._size_line(data, at)
        end, whole = self._head_end(data, at)
        self._held = b"" if whole else (self._held + data[max(at, end - 3) : end])[-3:]
        return end

    def _size_line(self, data: bytes, at: int) -> int:
        while not self._size and (line := _SIZE_LINE.match(data, at)):  # (whole lines: a run of chunks
            size = int(line[1], 16)  # walked in one step each)
            if not size:
                self._mode, self._held = _HEAD, b"\r\n"  # the trailers (see below)
                return line.end()
            at = line.end() + size + 2
            if at > len(data):
                self._mode, self._left = _DATA, at - len(data)
                return len(data)
        newline = data.find(b"\n", at)
        end = len(data) if newline < 0 else newline + 1
        if self._hex:
            digits = size_digits(data[at : at + MAX_SIZE_DIGITS + 1])
            self._size += data[at : at + digits]
            self._hex = digits == end - at
            if len(self._size) > MAX_SIZE_DIGITS:
                self._refuse(LONG_CHUNK_SIZE)
                raise httptools.HttpParserError(LONG_CHUNK_SIZE)
        if newline >= 0:
            size = int(self._size or b"0", 16)
            if size:
                self._mode, self._left = _DATA, size + 2
            else:  # the last chunk: the trailers, to the blank line (the size line's CRLF its start)
                self._mode, self._held = _HEAD, b"\r\n"
        return end

    def _head_end(self, data: bytes, at: int) -> tuple[int, bool]:
        """Where the piece at `at` ends: after the head's blank line (whole: True), or at the end."""
        if self._held:
            self._take_line(data, at)
            spanning = (self._held + data[at : at + 3]).find(_END)
            if spanning >= 0:
                return at + spanning + 4 - len(self._held), True
            start = at
        else:
            first = _NOT_CRLF.search(data, at)  # (empty lines before a request line: no head yet)
            if first is None:
                return len(data), True
            start = first.start()
            self._line.clear()
            self._in_line = True
            self._take_line(data, start)
        found = data.find(_END, start)
        return (len(data), False) if found < 0 else (found + 4, True)

    def _take_line(self, data: bytes, at: int) -> None:
        if self._in_line:
            newline = data.find(b"\n", at)
            self._line += data[at : len(data) if newline < 0 else newline + 1]
            self._in_line = newline < 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._parser, name)
