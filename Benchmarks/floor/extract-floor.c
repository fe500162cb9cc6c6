// A lower bound for `rtpdump extract` on the large capture: the least work any extractor must do, in
// plain C with nothing checked. It reads the file (read() into one reused 4 MiB buffer, or mmap), takes
// every record as Ethernet + IPv4 + UDP + a 12-byte RTP header (true of Benchmarks/.data/large-h264.pcap,
// not of captures in general), scans each payload for a start code (the same SSE2 test as Sources/CH26x)
// and copies it into one access-unit buffer, cut at the marker bit. No reordering, no FU-A parsing,
// no output. Used by extract-floor.sh to show how far rtpdump is from the floor, and what 5x
// GStreamer's speed would leave for everything else.
#include <emmintrin.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t find_start_code(const uint8_t *bytes, size_t count) {
    size_t i = 0;
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    while (i + 18 <= count) {
        __m128i a = _mm_loadu_si128((const __m128i *)(bytes + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(bytes + i + 1));
        __m128i c = _mm_loadu_si128((const __m128i *)(bytes + i + 2));
        int m = _mm_movemask_epi8(
            _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(a, zero), _mm_cmpeq_epi8(b, zero)), _mm_cmpeq_epi8(c, one)));
        if (m) return i + (size_t)__builtin_ctz((unsigned)m);
        i += 16;
    }
    for (; i + 3 <= count; i++)
        if (!bytes[i] && !bytes[i + 1] && bytes[i + 2] == 1) return i;
    return count;
}

static uint8_t unit[8 << 20];
static size_t unit_length, total, units, start_codes;

static void record(const uint8_t *frame, size_t length) {
    if (length < 42 + 12) return;
    const uint8_t *rtp = frame + 42;
    size_t payload_length = length - 42 - 12;
    const uint8_t *payload = rtp + 12;
    if (find_start_code(payload, payload_length) != payload_length) start_codes++;
    if (unit_length + payload_length < sizeof unit) {
        memcpy(unit + unit_length, payload, payload_length);
        unit_length += payload_length;
    }
    if (rtp[1] & 0x80) {
        total += unit_length;
        unit_length = 0;
        units++;
    }
}

// Takes the whole records in data[offset..<end]; returns where the first incomplete one starts.
static size_t records(const uint8_t *data, size_t offset, size_t end) {
    while (offset + 16 <= end) {
        uint32_t captured;
        memcpy(&captured, data + offset + 8, 4);
        if (offset + 16 + captured > end) break;
        record(data + offset + 16, captured);
        offset += 16 + captured;
    }
    return offset;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: extract-floor CAPTURE read|mmap\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    if (strcmp(argv[2], "read") == 0) {
        size_t capacity = 4 << 20, have = 0, offset = 0;
        uint8_t *buffer = malloc(capacity);
        int first = 1;
        for (;;) {
            memmove(buffer, buffer + offset, have - offset);  // the unread rest of the last chunk
            have -= offset;
            offset = 0;
            ssize_t n = read(fd, buffer + have, capacity - have);
            if (n <= 0) break;
            have += (size_t)n;
            if (first) offset = 24;  // the file header
            first = 0;
            offset = records(buffer, offset, have);
        }
    } else {
        struct stat st;
        fstat(fd, &st);
        size_t size = (size_t)st.st_size, offset = 24;  // after the file header
        uint8_t *map = mmap(0, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) return 1;
        madvise(map, size, MADV_SEQUENTIAL);
        records(map, offset, size);
    }
    printf("%zu access units, %zu bytes, %zu payloads with a start code\n", units, total, start_codes);
    return 0;
}
