import Foundation
import NIOConcurrencyHelpers
import SwiftRTP
import TestSupport
import Testing

/// Feedback from a real browser under loss: the server loses every 25th packet to its viewer on the way (the
/// tests' loss), Chromium asks for them again (Generic NACK), the server sends them from the viewer's history, and
/// the browser decodes without losing a packet; its reports give the round trip; an encoder behind the source is
/// told when the browser asks for a keyframe.
@Suite(.serialized) struct WebRTCLossTests {
    @Test func chromiumsNACKsAreAnsweredFromTheHistory() async throws {
        let file = try await WebRTCBrowserTests.h264File(frames: 300, keyframeInterval: 60)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (source, pictures) = try Self.source(of: file)
        var configuration = WebRTCServer.Configuration(httpPort: 0, host: "127.0.0.1")
        configuration.dropsEveryNthPacket = 25
        let server = try WebRTCServer(configuration: configuration)
        server.mount(source, at: "/cam")
        try await server.start()
        // Pushed at 30 fps from the first viewer on, for as long as the browser plays.
        let pushing = Task {
            await source.waitForSubscriber()
            await Self.push(pictures, into: source, from: .now)
        }
        defer { pushing.cancel() }
        let played = try await WebRTCBrowserTests.play(
            "http://127.0.0.1:\(try #require(server.httpPort))/cam/", seconds: 6)
        let video = try #require(played.tracks?.first { $0.kind == "video" }, "\(played)")
        let viewers = await server.viewerStatistics()
        let viewer = try #require(viewers.first)
        #expect(viewer.negativeAcknowledgements > 0 && viewer.retransmittedPackets > 0, "\(viewer)")
        #expect(video.nackCount > 0, "\(video)")
        // Every lost packet came again: the browser counts none lost, and decoded the pictures sent.
        #expect(video.packetsLost == 0 && video.framesDecoded >= 60, "\(video)")
        #expect(viewer.roundTripTime.map { $0 < .seconds(1) } == true, "\(viewer)")
        await server.stop()
    }

    /// A viewer that joins a group of pictures seconds after its keyframe is sent the group from that keyframe at
    /// once (MediaSource keeps it): Chromium paints a picture within a second of the answer. The source's only
    /// keyframe is its first, 60 s of pictures before the end, so a server that waited for the next keyframe would
    /// have the browser decode nothing, however long the browser takes to start on a busy machine.
    @Test func aViewerStartsFromTheLatestKeyframeAtOnce() async throws {
        let file = try await WebRTCBrowserTests.h264File(frames: 1800, keyframeInterval: 1800)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (source, pictures) = try Self.source(of: file)
        let server = try WebRTCServer(configuration: .init(httpPort: 0, host: "127.0.0.1"))
        server.mount(source, at: "/cam")
        try await server.start()
        let start = ContinuousClock.now
        let pushing = Task { await Self.push(pictures, into: source, from: start) }
        defer { pushing.cancel() }
        try await Task.sleep(for: .seconds(2))  // into the group: no other keyframe follows
        let played = try await WebRTCBrowserTests.play(
            "http://127.0.0.1:\(try #require(server.httpPort))/cam/", seconds: 3)
        let elapsed = ContinuousClock.now - start
        try #require(elapsed < .seconds(60), "the browser started after the source's last picture: \(elapsed)")
        let video = try #require(played.tracks?.first { $0.kind == "video" }, "\(played)")
        #expect(video.framesDecoded > 0 && video.keyFramesDecoded == 1, "\(video)")
        #expect(
            played.firstFrameMs.map { $0 < 1000 } == true,
            "first picture \(played.firstFrameMs ?? -1) ms after the answer")
        await server.stop()
    }

    /// A source of an H.264 Annex B file's pictures, announced with their parameter sets.
    static func source(of file: String) throws -> (MediaSource, [[ArraySlice<UInt8>]]) {
        let pictures = AccessUnitSplitter.accessUnits(
            in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))), codec: .h264)
        var sets = ParameterSets(codec: .h264)
        for nal in pictures.lazy.flatMap({ $0 }) { _ = sets.update(NALUnit(codec: .h264, bytes: nal)) }
        return (try MediaSource(formats: [.video(VideoFormat(parameterSets: sets))]), pictures)
    }

    /// Pushes the pictures into `source` at 30 fps from `start`, until they end or the task is cancelled.
    static func push(_ pictures: [[ArraySlice<UInt8>]], into source: MediaSource, from start: ContinuousClock.Instant)
        async
    {
        for (index, nalUnits) in pictures.enumerated() where !Task.isCancelled {
            try? await Task.sleep(until: start + .milliseconds(index * 1000 / 30))
            source.push(.video(AccessUnit(codec: .h264, timestamp: UInt64(index * 3000), nalUnits: nalUnits)))
        }
    }

    /// A viewer's keyframe requests reach the source's encoder, at most one in 500 ms per track; all are counted.
    @Test func keyframeRequestsReachTheEncoderAtMostTwiceASecond() async throws {
        let source = try MediaSource(video: .h264)
        let asked = NIOLockedValueBox<[Int]>([])
        source.onKeyframeRequest { track in asked.withLockedValue { $0.append(track) } }
        let t0 = ArrivalTime(nanoseconds: 1_000_000_000)
        for step in 0..<10 { source.requestKeyframe(track: 0, now: t0 + .milliseconds(100 * step)) }
        #expect(asked.withLockedValue { $0 } == [0, 0])  // at 0 and 500 ms
        #expect(source.keyframeRequests == 10)
    }
}
