"""Evicts a process's mapped pages of one file (process_madvise MADV_PAGEOUT), so that its next
reads fault again: llama.cpp maps the model with MAP_POPULATE, which pre-faults every page, and
a page-fault sample of a populated mapping sees nothing.

  pageout.py PID PATH     prints the bytes advised
"""
import ctypes
import os
import sys

SYS_PROCESS_MADVISE = 440  # x86_64 and aarch64 (asm-generic) both
MADV_PAGEOUT = 21


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def main(pid, path):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.pidfd_open(pid)
    done = 0
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and parts[5].strip() == path:
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                iov = IoVec(lo, hi - lo)
                r = libc.syscall(SYS_PROCESS_MADVISE, fd, ctypes.byref(iov), 1, MADV_PAGEOUT, 0)
                if r < 0:
                    e = ctypes.get_errno()
                    sys.exit(f"process_madvise: {os.strerror(e)}")
                done += r
    print(done)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
