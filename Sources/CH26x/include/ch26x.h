#ifndef CH26X_H
#define CH26X_H

#include <stddef.h>
#include <stdint.h>

/// The offset of the first 00 00 01 in `bytes[0..<count]`, or `count` when there is none. On x86 it
/// tests 32 positions at a time with AVX2 when the CPU has it, else 16 with SSE2; on AArch64 16 with NEON;
/// byte by byte elsewhere.
size_t ch26x_find_start_code(const uint8_t *bytes, size_t count);

/// Which scan `ch26x_find_start_code` uses: 2 AVX2, 1 SSE2 or NEON, 0 bytes (for tests and benchmarks).
int ch26x_start_code_path(void);

/// `ch26x_find_start_code` with the scan chosen: 2 AVX2 (SSE2 when the CPU lacks it; NEON on AArch64),
/// 1 SSE2 or NEON (bytes elsewhere), 0 bytes. For tests that check each path against the others.
size_t ch26x_find_start_code_using(int path, const uint8_t *bytes, size_t count);

/// Copies `source[0..<count]` to `destination` (the two must not overlap) and returns, as
/// `ch26x_find_start_code` does, the offset of the first 00 00 01 in `source[0..<count]`, or `count`. The
/// scan reads the bytes as they are copied: one pass over them instead of two.
size_t ch26x_copy_find_start_code(uint8_t *destination, const uint8_t *source, size_t count);

/// `ch26x_copy_find_start_code` with the scan chosen, as `ch26x_find_start_code_using`.
size_t ch26x_copy_find_start_code_using(int path, uint8_t *destination, const uint8_t *source, size_t count);

#endif
