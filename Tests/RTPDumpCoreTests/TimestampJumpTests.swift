import Foundation
import H26x
import MediaPipeline
import RTPDumpCore
import PacketCapture
import RTP
import TestSupport
import Testing

/// A sender whose clock steps in an unbroken stream (h264-gst.pcap with every RTP timestamp from packet 500 on
/// moved 11 s back, or 10 s on): the pipeline flags the first unit after the step as a timestamp jump (not a
/// break), and a recording keeps every picture, the gap of a step forward once; FFmpeg reads the files.
@Suite(.enabled(if: RTPDumpBinary.present)) struct TimestampJumpTests {
    /// h264-gst.pcap with the RTP timestamps of its pictures from the one after its 500th packet on moved by
    /// `ticks` (the step falls between two pictures, as a sender's clock steps).
    static func stepped(by ticks: Int64) throws -> String {
        var rtp = 0
        var previous: UInt32?
        var stepping = false
        let bytes = try CaptureRewriting.rewritten("h264-gst.pcap") { _, payload in
            var payload = payload
            guard payload.count >= 12, payload[0] >> 6 == 2, !RTPPacket.looksLikeRTCP(payload[...]) else {
                return payload
            }
            let timestamp =
                UInt32(payload[4]) << 24 | UInt32(payload[5]) << 16 | UInt32(payload[6]) << 8 | UInt32(payload[7])
            defer {
                rtp += 1
                previous = timestamp
            }
            if rtp >= 500 && timestamp != previous { stepping = true }
            guard stepping else { return payload }
            let moved = UInt32(truncatingIfNeeded: Int64(timestamp) + ticks)
            for i in 0..<4 { payload[4 + i] = UInt8(truncatingIfNeeded: moved >> (24 - 8 * UInt32(i))) }
            return payload
        }
        return try CaptureRewriting.file(bytes, named: "stepped.pcap")
    }

    /// The access units of a capture through the pipeline, as `rtpdump nals` reads it.
    static func units(_ path: String) throws -> [AccessUnit] {
        var capture = try CaptureFile(contentsOf: path)
        var streams = CaptureMediaStreams.video()
        var units: [AccessUnit] = []
        while let datagram = try capture.nextDatagram() { streams.add(datagram, accessUnits: { units.append($1) }) }
        streams.finish(accessUnits: { units.append($1) })
        return units
    }

    /// Exactly the unit after the step is a jump, none a discontinuity, every picture is there.
    @Test(arguments: [-11 * 90_000, 10 * 90_000] as [Int64])
    func thePipelineFlagsTheUnitAfterTheStep(ticks: Int64) throws {
        let path = try Self.stepped(by: ticks)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let units = try Self.units(path)
        #expect(units.count == 90)
        #expect(units.filter(\.isTimestampJump).count == 1)
        #expect(!units.contains { $0.isDiscontinuity })
        let jumped = try #require(units.firstIndex { $0.isTimestampJump })
        #expect(Int64(bitPattern: units[jumped].timestamp &- units[jumped - 1].timestamp).magnitude > 9 * 90_000)
        // The original capture (B-frame-free, 30 fps) has none.
        #expect(!(try Self.units(Fixtures.capture("h264-gst.pcap"))).contains { $0.isTimestampJump })
    }

    /// FFmpeg reads every picture of the recordings, in order; a step back goes on where the track was (the
    /// file lasts what the capture lasts), a step forward keeps its gap once (3 s + 10 s). Before, the step back
    /// lost 47 of 90 pictures and the step forward's file lasted 21.5 s, its later pictures 1 tick apart.
    @Test(arguments: [(-11 * 90_000, 3.0), (10 * 90_000, 13.0)] as [(Int64, Double)])
    func aRecordingAcrossTheStepKeepsEveryPicture(ticks: Int64, duration: Double) async throws {
        let path = try Self.stepped(by: ticks)
        let output = RecordCommandTests.temporary("stepped.mp4")
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: output)
        }
        let run = try await RTPDumpBinary.run(["record", path, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try await RecordCommandTests.decodedMD5s([Fixtures.capture("h264-gst.pcap")])
        let recorded = try await RecordCommandTests.ffmpegFrames(output)
        #expect(recorded.md5s == expected)
        #expect(recorded.times == recorded.times.sorted())
        let probe = try await runProgram(
            "/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", output])
        let seconds = try #require(Double(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(seconds - duration) < 0.05, "the recording lasts \(seconds) s")
    }
}
