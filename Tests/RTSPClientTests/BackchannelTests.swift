import Audio
import Foundation
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing

/// The ONVIF audio backchannel against gst-rtsp-server's (`RTSPOnvifMediaFactory` with a backchannel into
/// `mulawdec`): what the server decodes must be FFmpeg's µ-law round trip of what was sent.
@Suite(.serialized, .loadExclusive) struct BackchannelTests {
    static func temporary(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("backchannel-\(UUID())-\(name)")
    }

    /// `seconds` of a 440 Hz tone, mono 16-bit at `rate`, as FFmpeg writes it.
    static func tone(seconds: Int, rate: Int = 8000) async throws -> URL {
        let wav = temporary("in.wav")
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-ar", "\(rate)", "-ac",
                "1", "-c:a", "pcm_s16le", wav.path,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        return wav
    }

    /// What the server has written to `file` once it holds `count` bytes, or after 2 s: it writes what it decodes
    /// as it arrives.
    static func heard(_ file: URL, atLeast count: Int) async throws -> Data {
        var received = Data()
        for _ in 0..<40 {
            received = (try? Data(contentsOf: file)) ?? Data()
            if received.count >= count { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return received
    }

    /// FFmpeg's µ-law round trip of `wav`, as 16-bit samples.
    static func muLawRoundTrip(_ wav: URL) async throws -> Data {
        let coded = temporary("ref.ulaw")
        let decoded = temporary("ref.raw")
        defer { try? FileManager.default.removeItem(at: coded) }
        defer { try? FileManager.default.removeItem(at: decoded) }
        _ = try await runProgram(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", wav.path, "-c:a", "pcm_mulaw", "-f", "mulaw", coded.path])
        _ = try await runProgram(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-f", "mulaw", "-ar", "8000", "-ac", "1", "-i", coded.path, "-f", "s16le", decoded.path])
        return try Data(contentsOf: decoded)
    }

    @Test func rtpdumpTalkIsHeardAsFFmpegsMuLawRoundTrip() async throws {
        let wav = try await Self.tone(seconds: 2)
        defer { try? FileManager.default.removeItem(at: wav) }
        let heard = Self.temporary("heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let server = try await RealServer(["--backchannel", heard.path, "--frames", "300"])
        defer { server.stop() }
        try await Self.expectTalkIsHeard(url: server.url, wav: wav, heard: heard)
    }

    /// `rtpdump talk URL --input WAV` (2 s of a tone at 8 kHz) ends by itself, sending PCMU, and the camera that
    /// writes what it decodes to `heard` hears FFmpeg's µ-law round trip of the WAV.
    static func expectTalkIsHeard(url: String, wav: URL, heard: URL) async throws {
        let run = try await RTPDumpBinary.run(["talk", url, "--input", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("as PCMU/8000"), "\(run.stderr)")
        let expected = try await muLawRoundTrip(wav)
        #expect(expected.count == 32_000)
        let received = try await Self.heard(heard, atLeast: expected.count)
        #expect(received == expected)
    }

    /// A backchannel that takes AAC (mpeg4-generic, 16 kHz mono) or Opus: `rtpdump talk` encodes the WAV through
    /// FFmpeg, and what gst-rtsp-server decodes (avdec_aac, opusdec) is FFmpeg's own round trip of it: the same
    /// samples, bit for bit. Opus over RTP has no pre-skip: the server's decoder gives the encoder's lookahead
    /// first, which the Ogg reference leaves out (its OpusHead says how much).
    @Test(arguments: ["aac", "opus"])
    func rtpdumpTalkEncodesForABackchannelThatTakes(codec: String) async throws {
        let wav = try await Self.tone(seconds: 2, rate: 16000)
        defer { try? FileManager.default.removeItem(at: wav) }
        let heard = Self.temporary("heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let server = try await RealServer([
            "--backchannel", heard.path, "--backchannel-codec", codec, "--frames", "300",
        ])
        defer { server.stop() }
        let run = try await RTPDumpBinary.run(["talk", server.url, "--input", wav.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains(codec == "aac" ? "as MPEG4-GENERIC/16000" : "as opus/48000"), "\(run.stderr)")

        let coded = Self.temporary(codec == "aac" ? "ref.aac" : "ref.ogg")
        let decoded = Self.temporary("ref.raw")
        defer { try? FileManager.default.removeItem(at: coded) }
        defer { try? FileManager.default.removeItem(at: decoded) }
        var skip = 0
        if codec == "aac" {
            _ = try await runProgram(
                "/usr/bin/ffmpeg", ["-v", "error", "-i", wav.path, "-c:a", "aac", "-f", "adts", coded.path])
            _ = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", coded.path, "-f", "f32le", decoded.path])
        } else {
            _ = try await runProgram(
                "/usr/bin/ffmpeg",
                ["-v", "error", "-i", wav.path, "-c:a", "libopus", "-ar", "48000", "-ac", "2", "-f", "ogg", coded.path])
            _ = try await runProgram(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-c:a", "libopus", "-i", coded.path, "-f", "s16le", "-ar", "48000", "-ac", "2",
                    decoded.path,
                ])
            // OpusHead: "OpusHead", version, channels, pre-skip (16 bits, little-endian), in stereo 16-bit bytes.
            let ogg = [UInt8](try Data(contentsOf: coded))
            let head = try #require(ogg.firstRange(of: Array("OpusHead".utf8)))
            skip = (Int(ogg[head.upperBound + 2]) | Int(ogg[head.upperBound + 3]) << 8) * 4
        }
        let expected = try Data(contentsOf: decoded)
        #expect(expected.count > 100_000)
        let received = try await Self.heard(heard, atLeast: skip + expected.count)
        #expect(
            received.count >= skip + expected.count, "\(received.count) bytes, \(skip) + \(expected.count) expected")
        #expect(received.dropFirst(skip).prefix(expected.count) == expected)
    }

    /// Through the API: video received while audio is sent, both on one session over TCP.
    @Test func aSessionReceivesVideoWhileItTalks() async throws {
        let heard = Self.temporary("heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let server = try await RealServer(["--backchannel", heard.path, "--frames", "300"])
        defer { server.stop() }
        var options = RTSPSessionOptions()
        options.backchannel = true
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let backchannel = try #require(session.backchannel)
        #expect(backchannel.format.codec == .pcmu && session.tracks[backchannel.track].isBackchannel)
        #expect(session.tracks.filter { !$0.isBackchannel }.map(\.format.kind) == [.video])
        var pictures = 0
        var sent = 0
        for try await unit in try session.accessUnits() {
            pictures += unit.isComplete ? 1 : 0
            // A 20 ms packet of a ramp for each picture (30 a second: a little faster than real time).
            try backchannel.send(pcm: (0..<160).map { Int16((sent + $0) % 4000 - 2000) })
            sent += 160
            if pictures == 45 { break }
        }
        // The camera plays what it has before the session ends: a TEARDOWN right behind the last packets
        // stops gst-rtsp-server's backchannel pipeline before they are through it.
        try await Task.sleep(for: .milliseconds(500))
        await session.teardown()
        #expect(pictures == 45)
        let expected = G711.encode((0..<sent).map { Int16($0 % 4000 - 2000) }, codec: .pcmu).map(G711.muLawDecode)
        let received = try await Self.heard(heard, atLeast: sent * 2)
        let samples = stride(from: 0, to: received.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(received[$0]) | UInt16(received[$0 + 1]) << 8)
        }
        #expect(samples == expected)
    }

    /// A server without a backchannel (gst-rtsp-server's plain media) refuses the requirement: the session
    /// fails with `.unsupported`, saying so.
    @Test func aCameraWithoutABackchannelSaysSo() async throws {
        let server = try await RealServer(["--frames", "60"])
        defer { server.stop() }
        var options = RTSPSessionOptions()
        options.backchannel = true
        do {
            _ = try await RTSPSession.connect(to: server.url, options: options)
            Issue.record("played without the backchannel it asked for")
        } catch let error as RTSPClientError {
            #expect(error.code == .unsupported, "\(error)")
            #expect("\(error)".contains("backchannel"), "\(error)")
        }
    }
}
