"""Landlock: the kernel's half of the wall (#31). Stdlib only (ctypes); runs in the worker.

A process restricts itself, irreversibly, to a ruleset, and its children inherit it (the
kernel's documentation and its sample ``sandboxer.c`` are the model). The ruleset here
handles every right that changes the file system (write, truncate, remove, make, rename
across folders) and grants them only beneath the given folders, plus ``/dev/null``; reading
and executing stay as they were. From ABI 6 it also scopes signals and abstract Unix
sockets to the process's own domain: the code under test cannot signal codemode or talk to
a desktop bus. So a write through ctypes, a C extension or a child process is refused by the
kernel (EACCES), where the audit hook (``wall.py``) cannot see it.

``restrict`` probes the ABI first and degrades with a reason: no Landlock (not Linux, a
kernel before 5.13, or Landlock not enabled) leaves the audit hook alone, and the run says so.
"""

from __future__ import annotations

import os
import sys

# The syscalls' numbers are the same on every architecture (asm-generic, Linux 5.13).
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# include/uapi/linux/landlock.h: the file system's rights, with the ABI that brought each.
_WRITE_FILE = 1 << 1
_REMOVE_DIR, _REMOVE_FILE = 1 << 4, 1 << 5
_MAKE = sum(1 << n for n in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER = 1 << 13  # ABI 2: link or rename across folders
_TRUNCATE = 1 << 14  # ABI 3
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

_abi: int | None = None
_LIBC: list[object] = []  # libc through ctypes, loaded once per process
_TYPES: list[type] = []  # the two ctypes structures, made once per process (children reuse them)


def abi() -> int:
    """The Landlock ABI this kernel offers; 0 where there is none."""
    global _abi
    if _abi is None:
        _abi = _probe()
    return _abi


def _libc() -> object | None:
    if _LIBC:
        return _LIBC[0]
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    except (ImportError, OSError):
        return None
    return _LIBC[0]


def _probe() -> int:
    libc = _libc()
    if libc is None:
        return 0
    try:
        version = libc.syscall(_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)  # type: ignore[attr-defined]
    except Exception:
        return 0
    return version if version > 0 else 0


def why_not() -> str:
    """Why Landlock does not hold here (empty when it does)."""
    if abi():
        return ""
    if not sys.platform.startswith("linux"):
        return f"Landlock is Linux's, and this is {sys.platform}"
    return "this kernel offers no Landlock (Linux 5.13+ with Landlock enabled)"


def _rights(version: int) -> int:
    rights = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if version >= 2:
        rights |= _REFER
    if version >= 3:
        rights |= _TRUNCATE
    return rights


def _structures() -> list[type]:
    """``struct landlock_ruleset_attr`` and ``struct landlock_path_beneath_attr`` (packed)."""
    if not _TYPES:
        import ctypes

        class RulesetAttr(ctypes.Structure):
            _fields_ = [
                ("handled_access_fs", ctypes.c_uint64),
                ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64),
            ]

        class PathBeneath(ctypes.Structure):
            _pack_ = 1
            _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

        _TYPES[:] = [RulesetAttr, PathBeneath]
    return _TYPES


def restrict(writable: list[str]) -> str:
    """Allow changes to the file system only beneath ``writable`` (folders that exist) and
    to ``/dev/null``, for this process and every process it starts, for good. Returns ""
    when the kernel holds it, else why not."""
    version = abi()
    if not version:
        return why_not()
    import ctypes

    libc = _libc()
    handled = _rights(version)

    RulesetAttr, PathBeneath = _structures()

    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if version >= 6 else 0
    attr = RulesetAttr(handled, 0, scoped)
    size = ctypes.sizeof(attr) if version >= 6 else 16  # older kernels refuse the longer form
    fd = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), size, 0)  # type: ignore[attr-defined]
    if fd < 0:
        return f"Landlock refused the ruleset ({os.strerror(ctypes.get_errno())})"
    try:
        file_rights = _WRITE_FILE | (_TRUNCATE if version >= 3 else 0)
        rules = [(p, handled) for p in writable] + [(os.devnull, file_rights)]
        for path, rights in rules:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # a folder that is gone holds nothing to allow
            try:
                rule = PathBeneath(rights if os.path.isdir(path) else file_rights, pfd)
                libc.syscall(_ADD_RULE, fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)  # type: ignore[attr-defined]
            finally:
                os.close(pfd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:  # type: ignore[attr-defined]
            return f"prctl(NO_NEW_PRIVS) failed ({os.strerror(ctypes.get_errno())})"
        if libc.syscall(_RESTRICT_SELF, fd, 0) != 0:  # type: ignore[attr-defined]
            return f"Landlock could not restrict the worker ({os.strerror(ctypes.get_errno())})"
    finally:
        os.close(fd)
    return ""
