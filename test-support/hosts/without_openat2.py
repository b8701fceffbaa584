#!/usr/bin/env python3
"""Runs a command on a host that seems to predate Linux 5.6: the `openat2` system call answers
ENOSYS, as an older kernel (or a container's seccomp profile written before the call existed)
answers it. A seccomp filter is installed in this process, then the command is executed; the
filter holds for the command and everything it starts.

    python3 without_openat2.py PROGRAM [ARG...]
"""
import ctypes
import os
import platform
import struct
import sys

OPENAT2 = 437  # the same number on every architecture (added after the tables were unified)
ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
ENOSYS = 38
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06
RET_ERRNO, RET_ALLOW = 0x00050000, 0x7FFF0000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


class Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    arch = ARCH.get(platform.machine())
    if arch is None:
        sys.exit(f"no seccomp architecture number known for {platform.machine()}")
    steps = [
        (LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (JEQ_K, 0, 3, arch),  # another architecture: allowed
        (LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (JEQ_K, 0, 1, OPENAT2),
        (RET_K, 0, 0, RET_ERRNO | ENOSYS),
        (RET_K, 0, 0, RET_ALLOW),
    ]
    code = b"".join(struct.pack("HBBI", *s) for s in steps)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = Program(len(steps), ctypes.cast(buf, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    zero = ctypes.c_ulong(0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), zero, zero, zero) != 0:
        sys.exit(f"PR_SET_NO_NEW_PRIVS: {os.strerror(ctypes.get_errno())}")
    mode = ctypes.c_ulong(SECCOMP_MODE_FILTER)
    if libc.prctl(PR_SET_SECCOMP, mode, ctypes.byref(prog), zero, zero) != 0:
        sys.exit(f"PR_SET_SECCOMP: {os.strerror(ctypes.get_errno())}")
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
