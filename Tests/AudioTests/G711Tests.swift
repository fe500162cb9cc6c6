import Audio
import Foundation
import SDP
import TestSupport
import Testing

/// G.711 against FFmpeg's `pcm_mulaw` and `pcm_alaw`: every 16-bit sample encodes to FFmpeg's code word, and
/// every code word decodes to FFmpeg's sample.
@Suite struct G711Tests {
    /// FFmpeg's output for `input` (raw s16le samples or code words) read as `inputFormat`, written as `outputFormat`
    /// with `codec`.
    static func ffmpeg(_ input: [UInt8], from inputFormat: String, to outputFormat: String, codec: String) async throws
        -> [UInt8]
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("g711-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("in.raw")
        let output = directory.appendingPathComponent("out.raw")
        try Data(input).write(to: source)
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", inputFormat, "-ar", "8000", "-ac", "1", "-i", source.path, "-c:a", codec, "-f",
                outputFormat, output.path,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        return [UInt8](try Data(contentsOf: output))
    }

    @Test(arguments: [(AudioCodec.pcmu, "mulaw"), (.pcma, "alaw")])
    func everySampleEncodesAsFFmpegs(codec: AudioCodec, name: String) async throws {
        let samples = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        let littleEndian = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        let expected = try await Self.ffmpeg(littleEndian, from: "s16le", to: name, codec: "pcm_\(name)")
        #expect(expected.count == samples.count)
        let ours = G711.encode(samples, codec: codec)
        let differing = zip(ours, expected).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(
            differing.isEmpty,
            "\(differing.count) samples differ, first at \(differing.first.map { samples[$0.offset] } ?? 0)")
    }

    @Test(arguments: [(AudioCodec.pcmu, "mulaw"), (.pcma, "alaw")])
    func everyCodeWordDecodesAsFFmpegs(codec: AudioCodec, name: String) async throws {
        let codes = (0...255).map { UInt8($0) }
        let decoded = try await Self.ffmpeg(codes, from: name, to: "s16le", codec: "pcm_s16le")
        let expected = stride(from: 0, to: decoded.count, by: 2).map {
            Int16(bitPattern: UInt16(decoded[$0]) | UInt16(decoded[$0 + 1]) << 8)
        }
        let ours = codes.map { codec == .pcmu ? G711.muLawDecode($0) : G711.aLawDecode($0) }
        #expect(ours == expected)
    }
}
