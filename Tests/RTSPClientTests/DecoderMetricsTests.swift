import FFmpegDecoding
import Foundation
import H26x
import MediaDecoding
import MediaPipeline
import MetricsTestKit
import RTSPClient
import RTSPServer
import TestSupport
import Testing
import VideoDecoding

/// A session's decoding counted under its metrics (``RTSPSessionOptions/metricsName``): the pictures FFmpeg decodes
/// from it, and a decoder that fails, each under the session's and the track's dimensions.
@Suite(.serialized) struct DecoderMetricsTests {
    /// FFmpeg's decoder, failing at its `failing`th unit as a decoder that cannot go on does (a fault no real
    /// decoder gives on demand).
    struct FailingDecoder: VideoDecoder {
        var decoder: FFmpegVideoDecoder
        var units = 0
        let failing: Int

        mutating func configure(parameterSets: ParameterSets) throws {
            try decoder.configure(parameterSets: parameterSets)
        }

        mutating func decode(_ unit: AccessUnit, emit: (I420Frame) -> Void) throws {
            units += 1
            guard units < failing else { throw VideoDecodingError(.decoderFailure, "the test's decoder gives up") }
            try decoder.decode(unit, emit: emit)
        }

        mutating func drain(emit: (I420Frame) -> Void) throws { try decoder.drain(emit: emit) }
        mutating func flush() { decoder.flush() }
        mutating func reset() { decoder.reset() }
    }

    /// A session of this library's server playing `pictures`, its metrics named `door` in `metrics`.
    static func session(playing pictures: [[ArraySlice<UInt8>]], metrics: TestMetrics) async throws
        -> (RTSPSession, RTSPServer, Task<Void, any Error>)
    {
        let source = try MediaSource(video: .h264)
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        server.mount(source, at: "/live")
        try await server.start()
        var options = RTSPSessionOptions()
        options.metricsName = "door"
        options.metricsFactory = metrics
        let session = try await RTSPSession.connect(
            to: "rtsp://127.0.0.1:\(try #require(server.port))/live", options: options)
        let pusher = Task {
            for (index, nalUnits) in pictures.enumerated() {
                source.push(.video(AccessUnit(codec: .h264, timestamp: UInt64(index) * 3600, nalUnits: nalUnits)))
                try await Task.sleep(for: .milliseconds(20))
            }
            source.finish()
        }
        return (session, server, pusher)
    }

    static let dimensions = [("session", "door"), ("track", "0")]

    @Test func thePicturesDecodedAreCounted() async throws {
        let pictures = try await MediaChangeEventsTests.pictures("320x240", frames: 30)
        let metrics = TestMetrics()
        let (session, server, pusher) = try await Self.session(playing: pictures, metrics: metrics)
        var frames = 0
        var damaged = 0
        for try await frame in try session.accessUnits().frames(decoder: try FFmpegVideoDecoder(codec: .h264)) {
            frames += 1
            if frame.mayBeDamaged { damaged += 1 }
        }
        try await pusher.value
        await server.stop()
        #expect(frames == 30)
        #expect(try metrics.expectCounter("video_decoder_frames_total", Self.dimensions).totalValue == frames)
        #expect(try metrics.expectCounter("video_decoder_damaged_frames_total", Self.dimensions).totalValue == damaged)
        #expect(try metrics.expectCounter("video_decoder_errors_total", Self.dimensions).totalValue == 0)
    }

    @Test func aDecoderThatFailsIsCountedAndEndsTheFrames() async throws {
        let pictures = try await MediaChangeEventsTests.pictures("320x240", frames: 30)
        let metrics = TestMetrics()
        let (session, server, pusher) = try await Self.session(playing: pictures, metrics: metrics)
        var frames = 0
        await #expect(throws: VideoDecodingError.self) {
            let decoder = FailingDecoder(decoder: try FFmpegVideoDecoder(codec: .h264), failing: 10)
            for try await _ in try session.accessUnits().frames(decoder: decoder) { frames += 1 }
        }
        await session.teardown()
        pusher.cancel()
        await server.stop()
        #expect(frames == 9)
        #expect(try metrics.expectCounter("video_decoder_frames_total", Self.dimensions).totalValue == 9)
        #expect(try metrics.expectCounter("video_decoder_errors_total", Self.dimensions).totalValue == 1)
    }
}
