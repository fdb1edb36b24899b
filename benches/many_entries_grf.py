# Writes a GRF 0x200 of N small stored entries, 1,000 a folder, laid out as
# kiln's own writer lays them out: the extraction benchmark of
# docs/benchmarks.md ("Archives").  Usage: many_entries_grf.py N OUT.grf
import struct, sys, zlib
n = int(sys.argv[1]); out = sys.argv[2]
body = bytearray(); rows = bytearray()
for i in range(n):
    data = b"entry %d\n" % i
    aligned = (len(data) + 7) // 8 * 8
    name = b"data\\d%03d\\f%06d.txt" % (i // 1000, i)
    rows += name + b"\0" + struct.pack("<IIIBI", len(data), aligned, len(data), 1, len(body))
    body += data + b"\0" * (aligned - len(data))
packed = zlib.compress(bytes(rows))
header = b"Master of Magic\0" + b"\0" * 14 + struct.pack("<IIII", len(body), 0, n + 7, 0x200)
with open(out, "wb") as f:
    f.write(header); f.write(body); f.write(struct.pack("<II", len(packed), len(rows))); f.write(packed)
