#ifndef CH26X_H
#define CH26X_H

#include <stddef.h>
#include <stdint.h>

/// The offset of the first 00 00 01 in `bytes[0..<count]`, or `count` when there is none. Tests 16
/// positions at a time with SSE2 where the compiler targets it, byte by byte elsewhere.
size_t ch26x_find_start_code(const uint8_t *bytes, size_t count);

#endif
