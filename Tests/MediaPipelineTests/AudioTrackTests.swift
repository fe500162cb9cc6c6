import Audio
import Foundation
import H26x
import MediaPipeline
import PacketCapture
import RTP
import SDP
import Testing

/// Audio tracks on the one pipeline beside video: a camera's H.264 and AAC as one session's two tracks,
/// each track's output its own sender's, dated by its own clock.
@Suite struct AudioTrackTests {
    static func packets(_ name: String) throws -> [(packet: RTPPacket, time: Int64)] {
        try MediaPipelineTests.packets(name)
    }

    static func audioFormat() throws -> AudioFormat {
        let sdp = try String(
            contentsOf: MediaPipelineTests.root.appendingPathComponent("Fixtures/captures/audio-aac-gst.sdp"),
            encoding: .utf8)
        return try #require(try SessionDescription(sdp).media.first?.audioFormat)
    }

    @Test func videoAndAudioTracksEachGiveTheirOwnSendersOutput() throws {
        let format = try Self.audioFormat()
        let video = VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1)
        let h264 = try Self.packets("h264-gst.pcap").map { (track: 0, $0.packet, $0.time) }
        let aac = try Self.packets("audio-aac-gst.pcap").map { (track: 1, $0.packet, $0.time) }
        var pipeline = MediaPipeline(formats: [.video(video), .audio(format)])
        #expect(pipeline.depacketizer(track: 1)?.payload == .audio(.aac))
        #expect(pipeline.depacketizer(track: 0)?.payload == .video(.h264))
        // A sender report of the audio source: its frames are dated at 48 kHz from it.
        let ssrc = try #require(aac.first?.1.ssrc)
        let base = try #require(aac.first?.1.timestamp)
        let ntp: UInt64 = (WallClockTime.unixEpochOffset + 1_700_000_000) << 32
        pipeline.receiveSenderReport(
            RTCPSenderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: base, packetCount: 0, octetCount: 0))
        var units = 0
        var frames: [AudioFrame] = []
        for (track, packet, time) in (h264 + aac).sorted(by: { $0.2 < $1.2 }) {
            pipeline.push(ReceivedPacket(track: track, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            while let unit = pipeline.next() {
                switch unit {
                case .video(let accessUnit):
                    #expect(accessUnit.track == 0)
                    units += 1
                case .audio(let frame): frames.append(frame)
                case .metadata, .raw: Issue.record("a unit of a kind no track carries")
                }
            }
        }
        pipeline.finish()
        while let unit = pipeline.next() {
            switch unit {
            case .video: units += 1
            case .audio(let frame): frames.append(frame)
            case .metadata, .raw: Issue.record("a unit of a kind no track carries")
            }
        }
        #expect(units == 90)
        let expected = try String(
            contentsOf: MediaPipelineTests.root.appendingPathComponent(
                "Fixtures/expected/audio-aac-gst.pcap.gst-frames.txt"),
            encoding: .utf8
        ).split(separator: "\n")
        #expect(frames.count == expected.count)
        #expect(frames.allSatisfy { $0.track == 1 && $0.codec == .aac })
        for frame in frames {
            let seconds = Double(Int32(bitPattern: frame.rtpTimestamp &- base)) / 48000
            let time = try #require(frame.captureTime)
            #expect(abs(time.secondsSince1970 - (1_700_000_000 + seconds)) < 1e-6)
        }
    }
}
