import Foundation
import SwiftRTP
import Testing

/// A downstream package's view: this test target depends on the `SwiftRTP` product alone and imports
/// nothing else of the library, so every name used here must come through that one import.
@Suite struct OneImportTests {
    /// What the session, capture and decoding APIs hand out, named after one import.
    @Test func theTypesAnApplicationMeetsAreNameable() throws {
        let types: [Any.Type] = [
            AccessUnit.self, WallClockTime.self, I420Frame.self, PCMFrame.self, AudioFrame.self, VideoCodec.self,
            RTSPSession.self, RTSPSessionOptions.self, RTSPClientError.self, RTSPSessionEvent.self,
            MediaPipeline.self, CaptureTracks.self, CaptureFile.self, FFmpegVideoDecoder.self,
            FFmpegAudioDecoder.self, PCMChunker.self, LatestFrameSink.self, RTPPacket.self, SessionDescription.self,
        ]
        #expect(types.count == 19)
        // And used: a capture through the pipeline, as the README's capture example does.
        let url = try RTSPURL("rtsp://camera.local/stream")
        #expect(url.port == 554)
        #expect(VideoCodec(encodingName: "H265") == .h265)
    }
}

/// Decoding sits on top of any source: a sequence of media units, whoever made it, decoded off the main
/// actor (the decoded sequence is `Sendable`: decoders are made in the task that iterates).
@Suite struct DecodingAnySourceTests {
    static let capture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/captures/h264-gst.pcap").path

    /// The capture's units, from the pipeline, as an async sequence of the application's own making.
    static func units() throws -> AsyncStream<MediaUnit> {
        var capture = try CaptureFile(contentsOf: capture)
        var tracks = CaptureTracks()
        var pipeline = MediaPipeline()
        let (stream, continuation) = AsyncStream.makeStream(of: MediaUnit.self)
        while let datagram = try capture.nextDatagram() {
            if case .packet(let received, let isNewTrack) = tracks.sort(datagram) {
                if isNewTrack { _ = pipeline.addTrack(.sniffing()) }
                pipeline.push(received)
            }
            while let unit = pipeline.next() { continuation.yield(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next() { continuation.yield(unit) }
        continuation.finish()
        return stream
    }

    @Test func unitsOfAnySourceDecodeInADetachedTask() async throws {
        let decoded = try Self.units().decoded(
            formats: { _ in nil }, video: { _, codec in try FFmpegVideoDecoder(codec: codec) },
            audio: { _, format in try FFmpegAudioDecoder(format: format) })
        let frames = try await Task.detached {
            var frames: [I420Frame] = []
            for try await unit in decoded {
                if case .video(let frame) = unit { frames.append(frame) }
            }
            return frames
        }.value
        #expect(frames.count == 90)
        #expect(frames.allSatisfy { !$0.mayBeDamaged && $0.width == 320 && $0.height == 240 })
    }

    /// Units in and no frame out is an error, not a quiet end: slices with no parameter sets or keyframe.
    @Test func unitsThatDecodeToNothingEndInAnError() async throws {
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)])
        let (units, continuation) = AsyncStream.makeStream(of: AccessUnit.self)
        for index in 0..<30 {
            let bytes = RTPPacketBuilder(
                marker: true, payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(index) * 3000,
                ssrc: 7, payload: [0x41, 0x9A, 0x02, 0x03, 0x04]
            ).bytes()
            pipeline.push(
                ReceivedPacket(track: 0, packet: try RTPPacket(bytes[...]), arrival: ArrivalTime(nanoseconds: 0)))
            while let unit = pipeline.next()?.accessUnit { continuation.yield(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next()?.accessUnit { continuation.yield(unit) }
        continuation.finish()
        let frames = units.decoded { _, codec in try FFmpegVideoDecoder(codec: codec) }
        let error = await #expect(throws: VideoDecodingError.self) { for try await _ in frames {} }
        #expect(error?.code == .noFrames)
        #expect(error?.reason.contains("30 access unit(s) decoded to no frame") == true, "\(String(describing: error))")
    }
}

/// A capture of an RTSP session whose RTP is interleaved in the RTSP connection reads through the library:
/// `RTSPSessionDatagrams` reassembles and frames the connection, the DESCRIBE answer gives the formats.
@Suite struct RTSPCaptureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    @Test func anRTSPOverTCPCaptureDecodesAsGStreamerDecodesIt() throws {
        let path = Self.fixtures.appendingPathComponent("captures/rtsp-h264-tcp.pcap").path
        var source = RTSPSessionDatagrams(capture: try CaptureFile(contentsOf: path))
        let session = try #require(try source.lookAheadForSession())
        let formats = session.description?.media.compactMap(\.mediaFormat) ?? []
        #expect(formats.first?.encodingName == "H264")
        var tracks = CaptureTracks(followsFlows: true)  // an RTSP track is its flow
        var pipeline = MediaPipeline()
        var decoders = TrackDecoders { _, codec in try FFmpegVideoDecoder(codec: codec) }
        var md5s: [String] = []
        try source.forEachDatagram { datagram in
            switch tracks.sort(datagram) {
            case .packet(let received, let isNewTrack):
                if isNewTrack {
                    let format = formats.first { $0.payloadType == received.packet.payloadType }
                    _ = pipeline.addTrack(format.map { Depacketizer(format: $0) } ?? .sniffing())
                }
                pipeline.push(received)
            case .senderReports(let reports):
                for report in reports { pipeline.receiveSenderReport(report) }
            case nil:
                break
            }
            while let unit = pipeline.next()?.accessUnit { try decoders.decode(unit) }
            while let frame = decoders.nextFrame() { md5s.append(FrameDigest.md5(frame)) }
        }
        pipeline.finish()
        while let unit = pipeline.next()?.accessUnit { try decoders.decode(unit) }
        try decoders.drain()
        while let frame = decoders.nextFrame() { md5s.append(FrameDigest.md5(frame)) }
        let expected = try String(
            contentsOf: Self.fixtures.appendingPathComponent("expected/rtsp-h264-tcp.pcap.gst-frames.md5"),
            encoding: .utf8
        ).split(separator: "\n").map(String.init)
        #expect(md5s.count == 89)
        #expect(md5s == expected)
    }
}
