#include "ch26x.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define CH26X_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#define CH26X_NEON 1
#endif

// Positions i..<count-2, one by one: for inputs shorter than one vector step, and where there is no vector code.
static size_t find_tail(const uint8_t *bytes, size_t i, size_t count) {
    for (; i + 3 <= count; i++) {
        if (bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1) return i;
    }
    return count;
}

#if CH26X_X86
// Each step tests 16 positions, i..i+15: the bytes at i and i+1 of each are both zero when their OR is,
// and the byte at i+2 is compared with 1; the mask has bit k set for a start code at i+k. Positions
// i..i+15 need bytes up to i+17.
__attribute__((target("sse2"))) static inline unsigned step_sse2(const uint8_t *bytes, size_t i) {
    __m128i first = _mm_loadu_si128((const __m128i *)(bytes + i));
    __m128i second = _mm_loadu_si128((const __m128i *)(bytes + i + 1));
    __m128i third = _mm_loadu_si128((const __m128i *)(bytes + i + 2));
    __m128i match = _mm_and_si128(
        _mm_cmpeq_epi8(_mm_or_si128(first, second), _mm_setzero_si128()), _mm_cmpeq_epi8(third, _mm_set1_epi8(1)));
    return (unsigned)_mm_movemask_epi8(match);
}

__attribute__((target("sse2"))) static size_t find_sse2(const uint8_t *bytes, size_t count) {
    if (count < 18) return find_tail(bytes, 0, count);
    size_t i = 0;
    const size_t last = count - 18;  // the last position a whole step can start at
    for (; i <= last; i += 16) {
        unsigned mask = step_sse2(bytes, i);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
    }
    // The positions left, in one last step over the final 18 bytes. It tests again some positions
    // already tested; none of those matched, so a match it finds is a new one.
    if (i + 2 < count) {
        unsigned mask = step_sse2(bytes, last);
        if (mask != 0) return last + (size_t)__builtin_ctz(mask);
    }
    return count;
}

// The same, 32 positions per step (bytes up to i+33), as a vector: 0xFF in lane k for a start code at i+k.
__attribute__((target("avx2"))) static inline __m256i match_avx2(const uint8_t *bytes, size_t i) {
    __m256i first = _mm256_loadu_si256((const __m256i *)(bytes + i));
    __m256i second = _mm256_loadu_si256((const __m256i *)(bytes + i + 1));
    __m256i third = _mm256_loadu_si256((const __m256i *)(bytes + i + 2));
    return _mm256_and_si256(
        _mm256_cmpeq_epi8(_mm256_or_si256(first, second), _mm256_setzero_si256()),
        _mm256_cmpeq_epi8(third, _mm256_set1_epi8(1)));
}

__attribute__((target("avx2"))) static inline unsigned step_avx2(const uint8_t *bytes, size_t i) {
    return (unsigned)_mm256_movemask_epi8(match_avx2(bytes, i));
}

__attribute__((target("avx2"))) static size_t find_avx2(const uint8_t *bytes, size_t count) {
    if (count < 34) return find_sse2(bytes, count);
    size_t i = 0;
    const size_t last = count - 34;
    // Two steps per turn while both are whole, one test for both: a start code is rare inside a NAL unit,
    // so the test almost always says go on.
    for (; last >= 32 && i <= last - 32; i += 64) {
        __m256i low = match_avx2(bytes, i);
        __m256i high = match_avx2(bytes, i + 32);
        __m256i any = _mm256_or_si256(low, high);
        if (_mm256_testz_si256(any, any)) continue;
        unsigned mask = (unsigned)_mm256_movemask_epi8(low);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
        return i + 32 + (size_t)__builtin_ctz((unsigned)_mm256_movemask_epi8(high));
    }
    for (; i <= last; i += 32) {
        unsigned mask = step_avx2(bytes, i);
        if (mask != 0) return i + (size_t)__builtin_ctz(mask);
    }
    if (i + 2 < count) {  // as in find_sse2
        unsigned mask = step_avx2(bytes, last);
        if (mask != 0) return last + (size_t)__builtin_ctz(mask);
    }
    return count;
}

// Copies count bytes and scans them in the same pass: each vector is stored as it is loaded for the test,
// so the scan costs no second read of the bytes (after the copy they would come back from the cache). The
// scan stops at the first start code; the rest is then copied with memcpy.
__attribute__((target("sse2"))) static size_t copy_find_sse2(uint8_t *destination, const uint8_t *source, size_t count) {
    size_t i = 0;
    if (count >= 18) {
        const size_t last = count - 18;
        for (; i <= last; i += 16) {
            _mm_storeu_si128((__m128i *)(destination + i), _mm_loadu_si128((const __m128i *)(source + i)));
            unsigned mask = step_sse2(source, i);
            if (mask != 0) {
                memcpy(destination + i + 16, source + i + 16, count - i - 16);
                return i + (size_t)__builtin_ctz(mask);
            }
        }
    }
    memcpy(destination + i, source + i, count - i);
    return i + find_sse2(source + i, count - i);
}

__attribute__((target("avx2"))) static size_t copy_find_avx2(uint8_t *destination, const uint8_t *source, size_t count) {
    size_t i = 0;
    if (count >= 34) {
        const size_t last = count - 34;
        for (; last >= 32 && i <= last - 32; i += 64) {
            _mm256_storeu_si256((__m256i *)(destination + i), _mm256_loadu_si256((const __m256i *)(source + i)));
            _mm256_storeu_si256(
                (__m256i *)(destination + i + 32), _mm256_loadu_si256((const __m256i *)(source + i + 32)));
            __m256i low = match_avx2(source, i);
            __m256i high = match_avx2(source, i + 32);
            __m256i any = _mm256_or_si256(low, high);
            if (_mm256_testz_si256(any, any)) continue;
            memcpy(destination + i + 64, source + i + 64, count - i - 64);
            unsigned mask = (unsigned)_mm256_movemask_epi8(low);
            if (mask != 0) return i + (size_t)__builtin_ctz(mask);
            return i + 32 + (size_t)__builtin_ctz((unsigned)_mm256_movemask_epi8(high));
        }
    }
    memcpy(destination + i, source + i, count - i);
    return i + find_avx2(source + i, count - i);
}

// Whether the CPU has AVX2 and the operating system saves the 256-bit registers (OSXSAVE, XCR0 bits 1-2).
static int has_avx2(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (!(c & bit_OSXSAVE) || !(c & bit_AVX)) return 0;
    unsigned xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6) != 6) return 0;
    if (__get_cpuid_max(0, 0) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & bit_AVX2) != 0;
}

// -1 until the first call decides; then 1 (AVX2) or 0 (SSE2, which every x86-64 CPU has).
static int use_avx2 = -1;

static int avx2_decided(void) {
    int avx2 = __atomic_load_n(&use_avx2, __ATOMIC_RELAXED);
    if (avx2 < 0) {
        avx2 = has_avx2();
        __atomic_store_n(&use_avx2, avx2, __ATOMIC_RELAXED);
    }
    return avx2;
}
#endif

#if CH26X_NEON
// The same test with NEON (every AArch64 CPU has it), 16 positions per step: lane k is 0xFF for a start
// code at i+k. Positions i..i+15 need bytes up to i+17.
static inline uint8x16_t match_neon(const uint8_t *bytes, size_t i) {
    uint8x16_t first = vld1q_u8(bytes + i);
    uint8x16_t second = vld1q_u8(bytes + i + 1);
    uint8x16_t third = vld1q_u8(bytes + i + 2);
    return vandq_u8(vceqzq_u8(vorrq_u8(first, second)), vceqq_u8(third, vdupq_n_u8(1)));
}

// The first lane set in a match that has one. NEON has no movemask: narrowing each 16-bit pair of lanes
// by a 4-bit shift leaves 4 bits per lane, in order, in 64 bits.
static inline size_t first_lane_neon(uint8x16_t match) {
    uint64_t bits = vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(match), 4)), 0);
    return (size_t)__builtin_ctzll(bits) >> 2;
}

static size_t find_neon(const uint8_t *bytes, size_t count) {
    if (count < 18) return find_tail(bytes, 0, count);
    size_t i = 0;
    const size_t last = count - 18;  // the last position a whole step can start at
    // Two steps per turn, one test for both, as find_avx2.
    for (; last >= 16 && i <= last - 16; i += 32) {
        uint8x16_t low = match_neon(bytes, i);
        uint8x16_t high = match_neon(bytes, i + 16);
        if (vmaxvq_u8(vorrq_u8(low, high)) == 0) continue;
        if (vmaxvq_u8(low) != 0) return i + first_lane_neon(low);
        return i + 16 + first_lane_neon(high);
    }
    for (; i <= last; i += 16) {
        uint8x16_t match = match_neon(bytes, i);
        if (vmaxvq_u8(match) != 0) return i + first_lane_neon(match);
    }
    if (i + 2 < count) {  // the positions left, in one overlapping step over the final 18 bytes, as find_sse2
        uint8x16_t match = match_neon(bytes, last);
        if (vmaxvq_u8(match) != 0) return last + first_lane_neon(match);
    }
    return count;
}

static size_t copy_find_neon(uint8_t *destination, const uint8_t *source, size_t count) {
    size_t i = 0;
    if (count >= 18) {
        const size_t last = count - 18;
        for (; last >= 16 && i <= last - 16; i += 32) {
            vst1q_u8(destination + i, vld1q_u8(source + i));
            vst1q_u8(destination + i + 16, vld1q_u8(source + i + 16));
            uint8x16_t low = match_neon(source, i);
            uint8x16_t high = match_neon(source, i + 16);
            if (vmaxvq_u8(vorrq_u8(low, high)) == 0) continue;
            memcpy(destination + i + 32, source + i + 32, count - i - 32);
            if (vmaxvq_u8(low) != 0) return i + first_lane_neon(low);
            return i + 16 + first_lane_neon(high);
        }
    }
    memcpy(destination + i, source + i, count - i);
    return i + find_neon(source + i, count - i);
}
#endif

size_t ch26x_find_start_code(const uint8_t *bytes, size_t count) {
    if (count < 3) return count;
#if CH26X_X86
    return avx2_decided() ? find_avx2(bytes, count) : find_sse2(bytes, count);
#elif CH26X_NEON
    return find_neon(bytes, count);
#else
    return find_tail(bytes, 0, count);
#endif
}

int ch26x_start_code_path(void) {
#if CH26X_X86
    return avx2_decided() ? 2 : 1;
#elif CH26X_NEON
    return 1;
#else
    return 0;
#endif
}

size_t ch26x_find_start_code_using(int path, const uint8_t *bytes, size_t count) {
    if (count < 3) return count;
#if CH26X_X86
    if (path >= 2 && avx2_decided()) return find_avx2(bytes, count);
    if (path >= 1) return find_sse2(bytes, count);
#elif CH26X_NEON
    if (path >= 1) return find_neon(bytes, count);
#endif
    return find_tail(bytes, 0, count);
}

size_t ch26x_copy_find_start_code_using(int path, uint8_t *destination, const uint8_t *source, size_t count) {
    if (count == 0) return 0;
#if CH26X_X86
    if (path >= 2 && avx2_decided()) return copy_find_avx2(destination, source, count);
    if (path >= 1) return copy_find_sse2(destination, source, count);
#elif CH26X_NEON
    if (path >= 1) return copy_find_neon(destination, source, count);
#endif
    memcpy(destination, source, count);
    return find_tail(source, 0, count);
}

size_t ch26x_copy_find_start_code(uint8_t *destination, const uint8_t *source, size_t count) {
    if (count == 0) return 0;
#if CH26X_X86
    return avx2_decided() ? copy_find_avx2(destination, source, count) : copy_find_sse2(destination, source, count);
#elif CH26X_NEON
    return copy_find_neon(destination, source, count);
#else
    memcpy(destination, source, count);
    return find_tail(source, 0, count);
#endif
}
