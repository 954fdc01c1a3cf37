"""Text as meaning: a unit vector per text from the subword vectors in vectors.bin, and its cosine to a catalog's tools.

The vectors are WordLlama's (MIT; how the file is built: tests/bench/build_vectors.py): a text's vector is the
mean of its pieces' vectors, where pieces are the Llama 2 SentencePiece vocabulary's and a word splits into them
by byte-pair merges in the vocabulary's order. A request put in other words than a tool's description can still
land near it. The file is optional: without it (or with a damaged one) the search is on words alone.
"""

import json
import pkgutil
from array import array
from collections.abc import Iterable
from functools import lru_cache
from operator import mul

DATA = "vectors.bin"
_MAX_TEXT = 2_000  # characters of a tool's text embedded: the opening says what it does
_MAX_WORD = 48  # characters of one word split into pieces (merging is quadratic in a word's length)
_BIAS = 128  # rows are signed bytes; packed fields hold them plus this, so sums never go negative


class Vectors:
    """The subword vectors: split a text into pieces, embed it as one unit vector."""

    def __init__(self, blob: bytes) -> None:
        head, _, data = blob.partition(b"\n")
        header = json.loads(head)
        if header.get("format") != "ankit-vectors 1":
            raise ValueError("not an ankit-vectors 1 file")
        self.dims = int(header["dims"])
        self.scales = [float(s) for s in header["scales"]]
        pieces = header["pieces"]
        if len(data) != len(pieces) * self.dims or len(self.scales) != self.dims:
            raise ValueError("vectors file is truncated")
        self._rank = {piece: n for n, piece in enumerate(pieces) if piece}
        self._rows = memoryview(data).cast("b")
        self._packed: dict[int, int] = {}
        self._split = lru_cache(maxsize=50_000)(self._split_word)

    def _split_word(self, word: str) -> tuple[int, ...]:
        """A word's pieces ('▁' marks its start): byte-pair merges, the vocabulary's earliest merge first."""
        rank = self._rank
        symbols: list[str] = []
        for char in word:
            if char in rank:
                symbols.append(char)
            else:  # byte fallback, as SentencePiece does for a character it lacks (a lone surrogate: '?')
                symbols.extend(f"<0x{b:02X}>" for b in char.encode("utf-8", "replace"))
        while len(symbols) > 1:
            best, at = None, -1
            for n in range(len(symbols) - 1):
                merged = rank.get(symbols[n] + symbols[n + 1])
                if merged is not None and (best is None or merged < best):
                    best, at = merged, n
            if best is None:
                break
            symbols[at:at + 2] = [symbols[at] + symbols[at + 1]]
        return tuple(rank[s] for s in symbols if s in rank)

    def pieces(self, text: str) -> list[int]:
        """The piece numbers of a text, as SentencePiece reads it ('▁' before every word)."""
        found: list[int] = []
        for word in text.split():
            found.extend(self._split("\u2581" + word[:_MAX_WORD]))
        return found

    def _pack(self, row: int) -> int:
        """A row as one integer of 32-bit fields, so a text's rows add up in a few big-integer additions."""
        packed = self._packed.get(row)
        if packed is None:
            start = row * self.dims
            fields = array("I", (v + _BIAS for v in self._rows[start:start + self.dims]))
            packed = self._packed[row] = int.from_bytes(fields.tobytes(), "little")
        return packed

    def embed(self, text: str) -> tuple[float, ...] | None:
        """The text's unit vector (the mean of its pieces' vectors, normalised); None when it has no piece."""
        rows = self.pieces(text[:_MAX_TEXT])
        if not rows:
            return None
        total = 0
        for row in rows:
            total += self._pack(row)
        fields = array("I")
        fields.frombytes(total.to_bytes(4 * self.dims, "little"))
        offset = _BIAS * len(rows)
        vector = [(f - offset) * s for f, s in zip(fields, self.scales)]
        norm = sum(v * v for v in vector) ** 0.5
        return tuple(v / norm for v in vector) if norm else None


@lru_cache(maxsize=1)
def shipped() -> Vectors | None:
    """The vectors ankit ships, read once; None when the file is missing or damaged (the search goes lexical)."""
    try:
        blob = pkgutil.get_data(__package__, DATA)  # pkgutil also reads it inside ankit.pyz
        return Vectors(blob) if blob else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The cosine of two unit vectors."""
    return sum(map(mul, a, b))


class Meanings:
    """A catalog's tools as vectors (each embedded the first time it is needed) and a request's cosine to them.

    For speed on the standard library, the tools' vectors are kept as bytes (one scale for all) sliced by
    dimension: one big integer per dimension holds that dimension of every tool in 32-bit fields, so a request's
    dot products with all tools are one sum of dims big-integer products (about 2 ms at 10,000 tools)."""

    def __init__(self, vectors: Vectors, texts: list[str]) -> None:
        self.vectors, self.texts = vectors, texts
        self._embedded: dict[int, tuple[float, ...] | None] = {}
        self._sliced: tuple[list[int], float, int] | None = None

    def of(self, i: int) -> tuple[float, ...] | None:
        """Tool i's unit vector."""
        if i not in self._embedded:
            self._embedded[i] = self.vectors.embed(self.texts[i])
        return self._embedded[i]

    def similarity(self, i: int, j: int) -> float:
        """How close two tools' texts are in meaning (0 when either has no vector)."""
        a, b = self.of(i), self.of(j)
        return cosine(a, b) if a and b else 0.0

    def _slices(self) -> tuple[list[int], float, int]:
        """Per dimension the big integer of every tool's byte (+128), one scale for all tools, and the offset
        column: every tool's vector in bytes of one scale, so the products need no per-tool correction."""
        if self._sliced is None:
            vectors = [self.of(i) for i in range(len(self.texts))]
            scale = max((abs(v) for vector in vectors if vector for v in vector), default=1.0) / 127 or 1.0
            rows = [[round(v / scale) for v in vector] if vector else [0] * self.vectors.dims for vector in vectors]
            sums = [sum(row) for row in rows]
            most = max(sums, default=0)
            columns = [array("I", (row[d] + _BIAS for row in rows)) for d in range(self.vectors.dims)]
            # (q + 128)(t + 128) summed over dimensions carries 128 * sum(t); this column cancels it per tool
            columns.append(array("I", (most - total for total in sums)))
            self._sliced = ([int.from_bytes(c.tobytes(), "little") for c in columns], scale, most)
            self._embedded.clear()  # the slices hold them now (tens of MB of floats at 10,000 tools)
        return self._sliced

    def cosines(self, text: str, among: Iterable[int] | None = None) -> list[tuple[int, float]]:
        """(tool, cosine) for every tool (or those among the given) the text is close to at all."""
        query = self.vectors.embed(text)
        if query is None or not self.texts:
            return []
        columns, tool_scale, most = self._slices()
        scale, row = _bytes(query, self.vectors.dims)
        total = _BIAS * columns[-1]
        for column, value in zip(columns, row):
            total += (value + _BIAS) * column
        fields = array("I")
        fields.frombytes(total.to_bytes(4 * len(self.texts), "little"))
        constant = _BIAS * most + _BIAS * sum(row) + _BIAS * _BIAS * len(row)
        unit = scale * tool_scale
        indices = range(len(self.texts)) if among is None else among
        return [(i, c) for i in indices if (c := (fields[i] - constant) * unit) > 0]


def _bytes(vector: tuple[float, ...] | None, dims: int) -> tuple[float, list[int]]:
    """A vector as a scale and signed bytes (all zero for none)."""
    if not vector:
        return 0.0, [0] * dims
    scale = max(abs(v) for v in vector) / 127 or 1.0
    return scale, [round(v / scale) for v in vector]
