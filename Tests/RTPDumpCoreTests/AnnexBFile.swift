import RTP
import Foundation
import H26x

/// Reads reference Annex B files (GStreamer's output) as lists of NAL units: a test-side splitter,
/// independent of the library's.
enum AnnexBFile {
    static func nalUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var start: Int?
        var i = 0
        func close(_ end: Int) {
            guard let s = start else { return }
            var e = end
            while e > s && bytes[e - 1] == 0 { e -= 1 }
            if e > s { out.append(Array(bytes[s..<e])) }
        }
        while i + 3 <= bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                close(i)
                i += 3
                start = i
            } else {
                i += 1
            }
        }
        close(bytes.count)
        return out
    }

    static func nalUnits(expected name: String) throws -> [[UInt8]] {
        nalUnits([UInt8](try Data(contentsOf: Fixtures.expected.appendingPathComponent(name))))
    }

    /// Parameter sets and access unit delimiters, which depayloaders add or drop at will.
    static func isParameterSetOrDelimiter(_ nal: [UInt8], _ codec: VideoCodec) -> Bool {
        let unit = NALUnit(codec: codec, bytes: nal[...])
        return unit.isParameterSet || unit.isAccessUnitDelimiter
    }
}
