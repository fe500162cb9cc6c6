import Foundation
@_spi(SansIO) import RTP
import TestSupport
import Testing

/// Sender clocks a hostile or unsynchronised sender gives, through `rtpdump nals` and `frames` (every printed
/// form of a wall-clock time): an RTCP sender report of NTP 0, of a time between 1900 and 1970, of the last NTP
/// time (the next units wrap to 1900), and ONVIF replay extensions (0xABAC) of random bytes. Each once ended the
/// process on a trap in the time's formatting; each must list every unit.
@Suite struct HostileClockTests {
    /// `capture` with every sender report's NTP time set to `ntp`.
    static func reportingAt(_ ntp: UInt64, capture: String = "h264-ffmpeg.pcap") throws -> String {
        let bytes = try CaptureRewriting.rewritten(capture) { _, payload in
            var payload = payload
            // An SR (payload type 200) first in its compound: NTP time at bytes 8 to 15.
            if payload.count >= 28, payload[1] == 200 {
                for i in 0..<8 { payload[8 + i] = UInt8(truncatingIfNeeded: ntp >> (56 - 8 * UInt64(i))) }
            }
            return payload
        }
        return try CaptureRewriting.file(bytes, named: "sr-\(ntp).pcap")
    }

    static func auLines(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.hasPrefix("au ") }
    }

    /// NTP 0 (RFC 3550: a sender with no wall clock) dates nothing; a time before 1970 prints as negative Unix
    /// seconds; the last NTP time's successors wrap to 1900. Every unit is listed, and the run succeeds.
    @Test(
        .enabled(if: RTPDumpBinary.present),
        arguments: [
            (UInt64(0), nil), (UInt64(1) << 32, "-2208988799."), (UInt64(0x7000_0000) << 32, "-329940608."),
            (UInt64.max, nil),
        ] as [(UInt64, String?)])
    func oddReportTimesListEveryUnit(ntp: UInt64, prefix: String?) async throws {
        let path = try Self.reportingAt(ntp)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await RTPDumpBinary.run(["nals", path])
        #expect(run.status == 0, "\(run.stderr)")
        let units = Self.auLines(run.stdout)
        #expect(units.count == 75)
        if ntp == 0 {
            #expect(units.allSatisfy { !$0.contains("wallclock=") })
        } else {
            #expect(units.allSatisfy { $0.contains("wallclock=") })
        }
        if let prefix {
            #expect(units.contains { $0.contains("wallclock=\(prefix)") }, "\(units.prefix(2))")
        }
        if ntp == UInt64.max {
            // After the report, the units' times run past the era's end: into 1900, negative Unix seconds.
            #expect(units.contains { $0.contains("wallclock=-220898879") })
        }
    }

    /// Audio frames print their times the same way: an AAC capture given a sender report of 1900 before its
    /// first packet (on its RTCP port, for its SSRC, at its first RTP time).
    @Test(.enabled(if: RTPDumpBinary.present)) func oddReportTimesListEveryAudioFrame() async throws {
        let bytes = try CaptureRewriting.replacing("audio-aac-ffmpeg.pcap") { index, packet in
            guard index == 0 else { return [(packet, 0)] }
            var report = RTCPCompoundBuilder()
            let ssrc = UInt32(packet[8]) << 24 | UInt32(packet[9]) << 16 | UInt32(packet[10]) << 8 | UInt32(packet[11])
            let rtp = UInt32(packet[4]) << 24 | UInt32(packet[5]) << 16 | UInt32(packet[6]) << 8 | UInt32(packet[7])
            report.appendSenderReport(
                RTCPSenderReport(ssrc: ssrc, ntpTimestamp: 1 << 32, rtpTimestamp: rtp, packetCount: 0, octetCount: 0))
            return [(report.bytes, 1), (packet, 0)]
        }
        let path = try CaptureRewriting.file(bytes, named: "aac-1900.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await RTPDumpBinary.run(["frames", path, "--sdp", Fixtures.capture("audio-aac-ffmpeg.sdp")])
        #expect(run.status == 0, "\(run.stderr)")
        let frames = run.stdout.split(separator: "\n").filter { $0.hasPrefix("frame ") }
        #expect(frames.count == 84)  // 21 packets of 4 AAC frames
        #expect(frames.allSatisfy { $0.contains("wallclock=-22089887") })
    }

    /// Every packet of a capture carries an ONVIF replay extension of random bytes (any recorded time, any
    /// flags): every unit is listed with a time, the run succeeds.
    @Test(.enabled(if: RTPDumpBinary.present)) func randomReplayExtensionsListEveryUnit() async throws {
        var random = SplitMix64(seed: 0xABAC)
        let bytes = try CaptureRewriting.rewritten("h264-gst.pcap") { _, payload in
            CaptureRewriting.withExtension(
                payload, profile: 0xABAC, data: (0..<12).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
        let path = try CaptureRewriting.file(bytes, named: "abac.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await RTPDumpBinary.run(["nals", path])
        #expect(run.status == 0, "\(run.stderr)")
        let units = Self.auLines(run.stdout)
        #expect(units.count == 90)
        #expect(units.filter { $0.contains("wallclock=") }.count >= 89)
    }
}
