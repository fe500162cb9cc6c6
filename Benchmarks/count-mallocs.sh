#!/usr/bin/env bash
# Counts the malloc calls a command makes, by an LD_PRELOAD shim built here (cc) that counts and forwards
# to glibc's allocator; prints "mallocs: N" on stderr when the command exits. Per-packet allocation shows
# as the difference between two runs of different lengths, e.g. on a live stream:
#   Benchmarks/count-mallocs.sh .build/release/rtpdump extract rtsp://HOST/PATH --duration 5 -o /dev/null
#   Benchmarks/count-mallocs.sh .build/release/rtpdump extract rtsp://HOST/PATH --duration 15 -o /dev/null
# usage: Benchmarks/count-mallocs.sh COMMAND [ARGUMENTS...]
set -euo pipefail
shim="$(mktemp -d)"
trap 'rm -rf "$shim"' EXIT
cat > "$shim/count.c" <<'C'
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
extern void *__libc_malloc(size_t);
static atomic_long calls;
void *malloc(size_t size) { atomic_fetch_add(&calls, 1); return __libc_malloc(size); }
__attribute__((destructor)) static void report(void) { fprintf(stderr, "mallocs: %ld\n", (long)calls); }
C
cc -shared -fPIC -O2 -o "$shim/count.so" "$shim/count.c"
LD_PRELOAD="$shim/count.so" "$@"
