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
}
