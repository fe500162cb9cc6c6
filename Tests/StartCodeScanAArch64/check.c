// Checks CH26x's start-code scans on AArch64 (the NEON path) against a byte-by-byte search: every
// position of a start code at every length up to 100 among near misses, every position among sparse
// zeros up to 200 bytes with a decoy zero pair before or after it, and 2,000 random inputs dense in zeros
// and ones, each also from every 7th offset; for each, both the scan and the copying scan (which must
// copy exactly `count` bytes). The same inputs as Tests/H26xTests/StartCodeScanTests.swift, which runs
// on the machine's own architecture. Built and run under qemu-aarch64 by run.sh. Exits 1 at the first
// disagreement, saying where.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch26x.h"

static size_t naive(const uint8_t *bytes, size_t count) {
    for (size_t i = 0; i + 3 <= count; i++)
        if (bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1) return i;
    return count;
}

static unsigned long checked;

static void check(const uint8_t *bytes, size_t count, const char *what, long position) {
    static uint8_t copy[400];
    size_t expected = naive(bytes, count);
    for (int path = 0; path <= 2; path++) {
        size_t found = ch26x_find_start_code_using(path, bytes, count);
        memset(copy, 0xEE, sizeof copy);
        size_t copied = ch26x_copy_find_start_code_using(path, copy + 1, bytes, count);
        int copyRight = copy[0] == 0xEE && copy[count + 1] == 0xEE && memcmp(copy + 1, bytes, count) == 0;
        if (found != expected || copied != expected || !copyRight) {
            printf("%s, length %zu, start code at %ld, path %d: expected %zu, scan %zu, copying scan %zu%s\n", what,
                count, position, path, expected, found, copied, copyRight ? "" : ", bytes copied wrong");
            exit(1);
        }
        checked++;
    }
}

static uint64_t state = 0x5EED;
static uint64_t next(void) {  // SplitMix64, as the Swift tests
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(void) {
    uint8_t bytes[300] = {0};
    static const uint8_t nearMisses[6] = {0x00, 0x00, 0x02, 0x01, 0x00, 0x03};
    for (size_t length = 0; length <= 100; length++) {
        for (size_t i = 0; i < length; i++) bytes[i] = nearMisses[i % 6];
        check(bytes, length, "near misses", -1);
        for (size_t position = 0; position + 2 < length; position++) {
            for (size_t i = 0; i < length; i++) bytes[i] = nearMisses[i % 6];
            bytes[position] = 0, bytes[position + 1] = 0, bytes[position + 2] = 1;
            check(bytes, length, "near misses", (long)position);
        }
    }
    static const uint8_t sparse[7] = {0x00, 0x01, 0x55, 0x01, 0x37, 0x01, 0x9A};
    for (size_t length = 0; length <= 200; length++) {
        for (size_t position = 0; position + 2 < length; position++) {
            long decoys[3] = {-1, (long)(position / 2), (long)(position + 3)};
            for (int d = 0; d < 3; d++) {
                for (size_t i = 0; i < length; i++) bytes[i] = sparse[i % 7];
                if (decoys[d] >= 0 && (size_t)decoys[d] + 3 <= length) {
                    bytes[decoys[d]] = 0, bytes[decoys[d] + 1] = 0, bytes[decoys[d] + 2] = 3;
                }
                bytes[position] = 0, bytes[position + 1] = 0, bytes[position + 2] = 1;
                check(bytes, length, "sparse zeros", (long)position);
            }
        }
    }
    for (int n = 0; n < 2000; n++) {
        size_t length = next() % 300;
        for (size_t i = 0; i < length; i++) {
            uint64_t r = next() % 8;
            bytes[i] = r < 5 ? 0 : (r < 7 ? 1 : (uint8_t)next());
        }
        for (size_t offset = 0; offset <= length; offset += 7) check(bytes + offset, length - offset, "random", -1);
    }
    printf("path %d: %lu scans agree\n", ch26x_start_code_path(), checked);
    return ch26x_start_code_path() == 1 ? 0 : 1;  // on AArch64 the NEON path must be the one chosen
}
