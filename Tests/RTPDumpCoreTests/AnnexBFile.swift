import RTP
import Foundation
import H26x
import TestSupport

/// Reads reference Annex B files (GStreamer's output) as lists of NAL units: a test-side splitter,
/// independent of the library's.
enum AnnexBFile {
    static func nalUnits(_ bytes: [UInt8]) -> [[UInt8]] { AnnexBSplitter.nalUnits(bytes) }

    static func nalUnits(expected name: String) throws -> [[UInt8]] {
        nalUnits([UInt8](try Data(contentsOf: Fixtures.expected.appendingPathComponent(name))))
    }

    /// Parameter sets and access unit delimiters, which depayloaders add or drop at will.
    static func isParameterSetOrDelimiter(_ nal: [UInt8], _ codec: VideoCodec) -> Bool {
        let unit = NALUnit(codec: codec, bytes: nal[...])
        return unit.isParameterSet || unit.isAccessUnitDelimiter
    }
}
