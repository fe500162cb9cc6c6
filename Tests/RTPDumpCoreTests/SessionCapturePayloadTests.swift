import Foundation
import TestSupport
import Testing
import VideoDecoding

/// A captured RTSP session (FFmpeg the client of gst-rtsp-server over TCP, `rtsp-server.py --payloads`) with
/// H.264, G.726-32, G.722, an application and an ONVIF metadata track, read by rtpdump with the SDP of its
/// DESCRIBE: the video against GStreamer's decoding of the same RTP, the G.726 against what FFmpeg's client
/// decoded as it received it, the documents against those the server was given (make-g72x-fixtures.sh).
@Suite(.enabled(if: RTPDumpBinary.present)) struct SessionCapturePayloadTests {
    static let capture = Fixtures.capture("rtsp-payloads-tcp.pcap")

    static func expected(_ name: String) throws -> String {
        try String(contentsOf: Fixtures.expected.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func streamsNamesEveryTracksCodecFromTheSession() async throws {
        let run = try await RTPDumpBinary.run(["streams", Self.capture])
        #expect(run.status == 0, "\(run.stderr)")
        let codecs = run.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").last }
        #expect(Set(codecs) == ["H264", "G726-32", "G722", "X-GST", "VND.ONVIF.METADATA"])
    }

    @Test func theVideoDecodesToGStreamersFrames() async throws {
        let run = try await RTPDumpBinary.run(["decode", Self.capture, "--md5"])
        #expect(run.status == 0, "\(run.stderr)")
        let md5s = run.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        #expect(
            md5s == (try Self.expected("rtsp-payloads-tcp.pcap.gst-frames.md5")).split(separator: "\n").map(String.init)
        )
    }

    @Test func theG726DecodesToWhatFFmpegsClientDecoded() async throws {
        let output = AudioFileTests.temporary("session.wav")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(["decode", "--audio", Self.capture, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("G726"), "\(run.stderr)")
        #expect(
            try await AudioFileTests.ffmpegPCM(output)
                == (try Self.expected("rtsp-payloads-tcp.pcap.ffmpeg-g726-pcm.txt")).trimmingCharacters(
                    in: .whitespacesAndNewlines))
    }

    @Test func theMetadataDocumentsAreThoseTheServerSent() async throws {
        let output = AudioFileTests.temporary("session.xml")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try await RTPDumpBinary.run(["extract", Self.capture, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let lines = text.components(separatedBy: "<?xml ").dropFirst().map { document -> String in
            var digest = MD5()
            digest.update(Array(("<?xml " + document).utf8))
            return "\(("<?xml " + document).utf8.count) \(digest.finalize())"
        }
        let sent = try Self.expected("metadata-onvif.pcap.sent-units.txt").split(separator: "\n").map(String.init)
        #expect(lines == Array(sent.prefix(20)))
    }
}
