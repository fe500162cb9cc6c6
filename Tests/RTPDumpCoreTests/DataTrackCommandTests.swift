import Foundation
import TestSupport
import Testing
import VideoDecoding

/// rtpdump on data tracks: `frames` lists ONVIF metadata documents and raw units, `extract -o OUT.xml` writes
/// the documents in order; each against what the sender sent (expected/<capture>.sent-units.txt).
@Suite(.enabled(if: RTPDumpBinary.present)) struct DataTrackCommandTests {
    static func sent(_ capture: String) throws -> [String] {
        try String(
            contentsOf: Fixtures.expected.appendingPathComponent("\(capture).pcap.sent-units.txt"), encoding: .utf8
        )
        .split(separator: "\n").map(String.init)
    }

    @Test(arguments: [("metadata-onvif-gzip", "metadata"), ("data-klv-gst", "raw")])
    func framesListsEveryUnit(capture: String, kind: String) async throws {
        let run = try await RTPDumpBinary.run(
            ["frames", Fixtures.capture("\(capture).pcap"), "--sdp", Fixtures.capture("\(capture).sdp")])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        let sizes = try Self.sent(capture).map { $0.split(separator: " ")[0] }
        #expect(lines.count == sizes.count)
        for (index, (line, size)) in zip(lines, sizes).enumerated() {
            #expect(
                line.hasPrefix("\(kind) ") && line.contains(" index=\(index) ") && line.contains(" bytes=\(size) "),
                "\(line)")
        }
    }

    @Test func extractWritesTheDocumentsInOrder() async throws {
        let output = AudioFileTests.temporary("metadata.xml")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(
            [
                "extract", Fixtures.capture("metadata-onvif-gzip.pcap"), "--sdp",
                Fixtures.capture("metadata-onvif-gzip.sdp"),
                "-o", output,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("metadata: 30 documents"))
        // The file is the documents back to back: cut at each XML declaration, each is one the sender sent.
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let documents = text.components(separatedBy: "<?xml ").dropFirst().map { "<?xml " + $0 }
        let lines = documents.map { document -> String in
            var digest = MD5()
            digest.update(Array(document.utf8))
            return "\(document.utf8.count) \(digest.finalize())"
        }
        #expect(lines == (try Self.sent("metadata-onvif-gzip")))
    }
}
