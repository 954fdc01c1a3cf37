"""Build ankit/discovery/vectors.bin, the subword vectors of the tool search, from the WordLlama wheel.

usage: python3 tests/bench/build_vectors.py WORDLLAMA_WHEEL [--dims 64] [--output PATH]
WORDLLAMA_WHEEL is the wheel of WordLlama 0.4.0.post1 from PyPI (`pip download wordllama==0.4.0.post1 --no-deps`;
MIT, (c) 2024 Lee Miller). A development-time script on the standard library alone: ankit never runs it. It reads
two files from the wheel: weights/l2_supercat_256.safetensors (one 256-dimension float16 vector per piece of the
32,000-piece Llama 2 / Phi-3 SentencePiece vocabulary, trained by WordLlama so that the mean of a text's piece
vectors embeds the text) and tokenizers/l2_supercat_tokenizer_config.json (the pieces, in merge order).

WordLlama's vectors are Matryoshka-trained, so their first dimensions carry most of the meaning: the file keeps the
first --dims of each, quantised to one signed byte per dimension with one scale per dimension. Layout: one line of
JSON (format, dims, scales, pieces in id order, source, license), then rows x dims signed bytes. Same wheel, same
bytes.
"""

import json
import struct
import sys
import zipfile
from pathlib import Path

OUTPUT = Path(__file__).resolve().parents[2] / "ankit" / "discovery" / "vectors.bin"
WEIGHTS = "wordllama/weights/l2_supercat_256.safetensors"
TOKENIZER = "wordllama/tokenizers/l2_supercat_tokenizer_config.json"
SOURCE = ("WordLlama 0.4.0.post1 l2_supercat (https://github.com/dleemiller/WordLlama), first {dims} of 256 "
          "dimensions, quantised to bytes; pieces: the Llama 2 / Phi-3 SentencePiece vocabulary")
LICENSE = "MIT, Copyright (c) 2024 Lee Miller (WordLlama); see README 'Measuring discovery'"


def read_matrix(blob: bytes) -> tuple[int, int, list[tuple[float, ...]]]:
    """The safetensors file's one float16 matrix: rows, columns, the rows."""
    size = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + size])
    entry = next(v for k, v in header.items() if k != "__metadata__")
    if entry["dtype"] != "F16":
        raise SystemExit(f"expected float16 weights, found {entry['dtype']}")
    rows, cols = entry["shape"]
    start, end = entry["data_offsets"]
    data = blob[8 + size + start:8 + size + end]
    values = struct.unpack(f"<{rows * cols}e", data)
    return rows, cols, [values[r * cols:(r + 1) * cols] for r in range(rows)]


def quantise(matrix: list[tuple[float, ...]], dims: int) -> tuple[list[float], bytes]:
    """One scale per dimension (its largest magnitude over 127) and the rows as signed bytes."""
    scales = [max(abs(row[d]) for row in matrix) / 127 or 1.0 for d in range(dims)]
    out = bytearray()
    for row in matrix:
        out.extend(struct.pack(f"{dims}b", *(max(-127, min(127, round(row[d] / scales[d]))) for d in range(dims))))
    return scales, bytes(out)


def build(wheel: Path, dims: int) -> bytes:
    """The file's bytes."""
    with zipfile.ZipFile(wheel) as archive:
        rows, cols, matrix = read_matrix(archive.read(WEIGHTS))
        vocab = json.loads(archive.read(TOKENIZER))["model"]["vocab"]
    if len(vocab) != rows or dims > cols:
        raise SystemExit(f"vocabulary of {len(vocab)} pieces for {rows} x {cols} weights: not the expected wheel")
    pieces = [""] * rows
    for piece, number in vocab.items():
        pieces[number] = piece
    scales, data = quantise(matrix, dims)
    header = {"format": "ankit-vectors 1", "dims": dims, "rows": rows, "scales": [round(s, 9) for s in scales],
              "source": SOURCE.format(dims=dims), "license": LICENSE, "pieces": pieces}
    return json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" + data


def main(argv: list[str]) -> int:
    """Write the file."""
    if not argv or argv[0].startswith("-"):
        print(__doc__.splitlines()[2])
        return 2
    dims = int(argv[argv.index("--dims") + 1]) if "--dims" in argv else 64
    output = Path(argv[argv.index("--output") + 1]) if "--output" in argv else OUTPUT
    blob = build(Path(argv[0]), dims)
    output.write_bytes(blob)
    print(f"wrote {output} ({len(blob):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
