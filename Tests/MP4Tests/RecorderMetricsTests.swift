import Foundation
import MP4
import MetricsTestKit
import Testing

/// A file recorder's metrics (swift-metrics, read through MetricsTestKit's factory) against the files on disk: their
/// sizes, their number, and the fragments (`moof` boxes) their top level holds.
@Suite struct RecorderMetricsTests {
    /// The top-level box types of an MP4 file, read from its bytes.
    static func topLevelBoxes(_ path: String) throws -> [String] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var types: [String] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            guard size >= 8 else { break }
            offset += size
        }
        return types
    }

    @Test func bytesFragmentsAndFilesAreWhatIsOnDisk() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metered-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let metrics = TestMetrics()
        var files = MP4FileRecorder(
            path: directory.appendingPathComponent("cam.mp4").path, segmented: true, metricsName: "porch",
            metricsFactory: metrics)
        var writer = FragmentedMP4Writer(
            tracks: EventRecorderTests.tracks,
            configuration: .init(fragmentDuration: .milliseconds(500), segmentDuration: .seconds(2)))
        for (_, unit) in EventRecorderTests.units(from: 0, to: 6) { try writer.append(unit) { try files.write($0) } }
        try writer.finish { try files.write($0) }
        try files.close()

        let written = files.files
        let sizes = try written.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0 }
        let fragments = try written.map { try Self.topLevelBoxes($0).filter { $0 == "moof" }.count }.reduce(0, +)
        let dimensions = [("recording", "porch")]
        #expect(written.count == 3)
        #expect(fragments > written.count)
        #expect(try metrics.expectCounter("mp4_recorder_files_total", dimensions).totalValue == Int64(written.count))
        #expect(
            try metrics.expectCounter("mp4_recorder_bytes_written_total", dimensions).totalValue
                == Int64(sizes.reduce(0, +)))
        #expect(try metrics.expectCounter("mp4_recorder_fragments_total", dimensions).totalValue == Int64(fragments))
    }
}
