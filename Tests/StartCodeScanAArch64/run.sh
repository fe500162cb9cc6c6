#!/usr/bin/env bash
# Builds Sources/CH26x for AArch64 with check.c (Debian's cross compiler) and runs it under qemu-aarch64:
# the NEON start-code scan, checked on an x86 machine. scripts/test installs gcc-aarch64-linux-gnu and
# qemu-user. Prints the checker's summary; exits non-zero if a scan disagrees with the byte-by-byte one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
aarch64-linux-gnu-gcc -O2 -Wall -Werror -I "$here/../../Sources/CH26x/include" \
    "$here/check.c" "$here/../../Sources/CH26x/ch26x.c" -o "$out/check"
qemu-aarch64 -L /usr/aarch64-linux-gnu "$out/check"
