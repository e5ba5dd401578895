# liblz4 oracle for the tests: the library PostgreSQL links (Debian liblz4.so.1), through ctypes.
# stdin: records  u8 op | u32 a | u32 b | u32 n | n bytes
#   op 0: LZ4_decompress_safe(src, dst, n, a)
#   op 1: LZ4_decompress_safe_partial(src, dst, n, a, b)
#   op 2: LZ4_compress_default(src, dst, n, LZ4_compressBound(n))
# stdout: per record  i32 ret | u32 m | m bytes (dst[:ret] when ret >= 0)
# exit 3 with a message on stderr when liblz4 cannot be loaded.
import ctypes, struct, sys

try:
    lib = ctypes.CDLL("liblz4.so.1")
except OSError as e:
    sys.stderr.write(f"cannot load liblz4.so.1: {e}\n")
    sys.exit(3)

for name, argtypes in (
    ("LZ4_decompress_safe", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]),
    ("LZ4_decompress_safe_partial", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    ("LZ4_compress_default", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]),
    ("LZ4_compressBound", [ctypes.c_int]),
    ("LZ4_versionNumber", []),
):
    getattr(lib, name).argtypes = argtypes
    getattr(lib, name).restype = ctypes.c_int

data = sys.stdin.buffer.read()
out = sys.stdout.buffer
pos = 0
while pos < len(data):
    op, a, b, n = struct.unpack_from("<BIII", data, pos)
    pos += 13
    src = data[pos:pos + n]
    pos += n
    if op == 0:
        dst = ctypes.create_string_buffer(max(a, 1))
        ret = lib.LZ4_decompress_safe(src, dst, n, a)
    elif op == 1:
        dst = ctypes.create_string_buffer(max(b, 1))
        ret = lib.LZ4_decompress_safe_partial(src, dst, n, a, b)
    elif op == 2:
        bound = lib.LZ4_compressBound(n)
        dst = ctypes.create_string_buffer(max(bound, 1))
        ret = lib.LZ4_compress_default(src, dst, n, bound)
    elif op == 3:
        dst = None
        ret = lib.LZ4_versionNumber()
    else:
        sys.stderr.write(f"bad op {op}\n")
        sys.exit(2)
    payload = dst.raw[:ret] if (dst is not None and ret > 0) else b""
    out.write(struct.pack("<iI", ret, len(payload)))
    out.write(payload)
out.flush()
