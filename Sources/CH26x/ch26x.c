#include "ch26x.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

size_t ch26x_find_start_code(const uint8_t *bytes, size_t count) {
    size_t i = 0;
    if (count < 3) return count;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    const __m128i one = _mm_set1_epi8(1);
    // Positions i..i+15 need bytes up to i+17.
    while (i + 18 <= count) {
        __m128i first = _mm_loadu_si128((const __m128i *)(bytes + i));
        __m128i second = _mm_loadu_si128((const __m128i *)(bytes + i + 1));
        __m128i third = _mm_loadu_si128((const __m128i *)(bytes + i + 2));
        __m128i match = _mm_and_si128(
            _mm_and_si128(_mm_cmpeq_epi8(first, zero), _mm_cmpeq_epi8(second, zero)), _mm_cmpeq_epi8(third, one));
        int mask = _mm_movemask_epi8(match);
        if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
        i += 16;
    }
#endif
    for (; i + 3 <= count; i++) {
        if (bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1) return i;
    }
    return count;
}
