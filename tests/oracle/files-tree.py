#!/usr/bin/env python3
"""List a scratch tree for the files-promise fixtures (policies/files/*/expected/tree*).

Usage: files-tree.py ROOTDIR
       files-tree.py --check-order ROOTDIR   (recorder helper: report every directory below ROOTDIR whose
                                              readdir order is not the sorted order; exit 3 if there is one)

One line per entry below ROOTDIR (ROOTDIR itself is not listed), sorted by the relative path's bytes:

    TYPE MODE UID GID SIZE SHA256 LINKTARGET PATH

  TYPE        f (regular file), d (directory), l (symbolic link), p (FIFO); s, c, b for socket, char, block
  MODE        st_mode & 07777 as 4 octal digits (for a symlink: the link's own mode, 0777 on Linux)
  UID GID     numeric owner and group of the entry itself (lstat)
  SIZE        bytes of a regular file; length in bytes of a symlink's target; '-' otherwise
  SHA256      hex digest of a regular file's content; '-' otherwise
  LINKTARGET  a symlink's target as stored (readlink); '-' otherwise
  PATH        path relative to ROOTDIR ('a/b/c'), raw bytes

Symbolic links are never followed (a link to a directory is listed as 'l' and not entered). Hard links are
listed once per name (nothing marks that two names share an inode). Python standard library only, so the
Rust tests can run the same script on cfsim's output tree.
"""
import hashlib
import os
import stat
import sys


def entries(root):
    out = []
    stack = [b""]
    while stack:
        rel = stack.pop()
        full = os.path.join(root, rel) if rel else root
        for name in os.listdir(full):
            r = os.path.join(rel, name) if rel else name
            st = os.lstat(os.path.join(root, r))
            out.append((r, st))
            if stat.S_ISDIR(st.st_mode):
                stack.append(r)
    out.sort(key=lambda e: e[0])
    return out


def line(root, rel, st):
    m = st.st_mode
    size, digest, target = b"-", b"-", b"-"
    if stat.S_ISREG(m):
        kind = b"f"
        h = hashlib.sha256()
        with open(os.path.join(root, rel), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 16), b""):
                h.update(chunk)
        size, digest = str(st.st_size).encode(), h.hexdigest().encode()
    elif stat.S_ISDIR(m):
        kind = b"d"
    elif stat.S_ISLNK(m):
        kind = b"l"
        target = os.readlink(os.path.join(root, rel))
        size = str(len(target)).encode()
    elif stat.S_ISFIFO(m):
        kind = b"p"
    elif stat.S_ISSOCK(m):
        kind = b"s"
    elif stat.S_ISCHR(m):
        kind = b"c"
    elif stat.S_ISBLK(m):
        kind = b"b"
    else:
        kind = b"?"
    mode = b"%04o" % stat.S_IMODE(m)
    return b" ".join([kind, mode, str(st.st_uid).encode(), str(st.st_gid).encode(), size, digest, target, rel])


def check_order(root):
    bad = 0
    for rel, st in entries(root):
        if stat.S_ISDIR(st.st_mode):
            names = os.listdir(os.path.join(root, rel) if rel else root)
            if names != sorted(names):
                bad += 1
                sys.stderr.write("readdir order is not sorted in %s: %s\n" % (
                    os.fsdecode(os.path.join(root, rel) if rel else root), " ".join(os.fsdecode(n) for n in names)))
    return 3 if bad else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check-order":
        return check_order(os.fsencode(sys.argv[2]))
    if len(sys.argv) != 2:
        sys.stderr.write("usage: files-tree.py ROOTDIR\n")
        return 2
    root = os.fsencode(sys.argv[1])
    out = sys.stdout.buffer
    for rel, st in entries(root):
        out.write(line(root, rel, st) + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
