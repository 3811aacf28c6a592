# xcf_private DIR: creates DIR (mode 700) when missing; succeeds when DIR is a directory owned by
# the login user and not group/world-writable; otherwise prints one line "xcfleet: refusing ..."
# naming the path and the fix on stderr and fails. A symlink is followed only when the link itself
# is ours. Sourced (prepended) by every host script that reuses a directory under the work root.
# POSIX sh, Linux and macOS.
xcf_private() {
  if [ ! -e "$1" ] && [ ! -L "$1" ]; then (umask 077; mkdir -p "$1") 2>/dev/null; fi
  if [ -L "$1" ] && [ -z "$(find "$1" -maxdepth 0 -user "$(id -u)" -print 2>/dev/null)" ]; then
    echo "xcfleet: refusing work directory $1: a symlink not owned by $(id -un); remove it or choose another workRoot" >&2; return 1
  fi
  if [ ! -d "$1" ]; then
    echo "xcfleet: refusing work directory $1: not a directory; remove it or choose another workRoot" >&2; return 1
  fi
  if [ ! -O "$1/." ]; then
    echo "xcfleet: refusing work directory $1: owned by $(ls -ld "$1/." | awk '{print $3}'), not by $(id -un); remove it or choose another workRoot" >&2; return 1
  fi
  if [ -n "$(find "$1/." -maxdepth 0 \( -perm -020 -o -perm -002 \) -print 2>/dev/null)" ]; then
    echo "xcfleet: refusing work directory $1: group- or world-writable; run chmod go-w '$1' or choose another workRoot" >&2; return 1
  fi
}
