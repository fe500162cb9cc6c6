import CH26x

/// Start codes (00 00 01, 00 00 00 01) and the NAL units between them.
enum AnnexB {
    /// The ranges of the NAL units in `bytes`, split at every start code; bytes before the first start code
    /// form a NAL unit too. Zero bytes just before a start code (its long form, trailing_zero_8bits) are
    /// left out. Empty ranges are skipped.
    static func split(_ bytes: ArraySlice<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = bytes.startIndex
        forEachStartCode(in: bytes) { codeStart, codeEnd in
            var end = codeStart
            while end > start && bytes[end - 1] == 0 { end -= 1 }
            if end > start { ranges.append(start..<end) }
            start = codeEnd
        }
        if start < bytes.endIndex { ranges.append(start..<bytes.endIndex) }
        return ranges
    }

    /// Whether `bytes` begins with 00 00 01 or 00 00 00 01.
    static func startsWithStartCode(_ bytes: ArraySlice<UInt8>) -> Bool {
        let head = bytes.prefix(4)
        return head.starts(with: [0, 0, 1]) || head.elementsEqual([0, 0, 0, 1])
    }

    /// Calls `body(start, end)` for each 00 00 01 in `bytes`, `start` at its first zero. The search is
    /// `ch26x_find_start_code` (C: 32 positions per step with AVX2, 16 with SSE2 or NEON).
    static func forEachStartCode(in bytes: ArraySlice<UInt8>, _ body: (Int, Int) -> Void) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count >= 3 else { return }
            var offset = 0
            while offset + 3 <= buffer.count {
                let found = offset + ch26x_find_start_code(base + offset, buffer.count - offset)
                guard found + 3 <= buffer.count else { return }
                body(bytes.startIndex + found, bytes.startIndex + found + 3)
                offset = found + 3
            }
        }
    }
}
