import Foundation
import H26x
import MediaPipeline
import RTP
import RTSPClient
import RTSPServer
import SDP
import Synchronization
import TestSupport
import Testing

/// A session's events about its media, from what its units show: an encoder (x264 through FFmpeg) that starts again
/// at another picture size mid-stream is told as parameter sets changed and the new size, once; a sender whose wall
/// clock steps by an hour is told as a clock jump of an hour, once. Served by this library's server, whose sender
/// reports pair the RTP time with the capture times the test pushes.
@Suite(.serialized) struct MediaChangeEventsTests {
    /// The access units of `frames` x264 pictures of `size`, a keyframe every 5, as FFmpeg writes them (Annex B).
    static func pictures(_ size: String, frames: Int) async throws -> [[ArraySlice<UInt8>]] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("changes-\(UUID()).h264")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25", "-frames:v", String(frames),
                "-c:v", "libx264", "-g", "5", "-bf", "0", "-pix_fmt", "yuv420p", "-f", "h264", file.path,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        return AccessUnitSplitter.accessUnits(in: [UInt8](try Data(contentsOf: file)), codec: .h264)
    }

    @Test func aNewPictureSizeAndASteppedClockAreToldOnce() async throws {
        let small = try await Self.pictures("320x240", frames: 20)
        let large = try await Self.pictures("640x480", frames: 20)
        #expect(small.count == 20 && large.count == 20)
        let source = try MediaSource(video: .h264)
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.reportInterval = .milliseconds(100)  // the session dates its units anew soon after the step
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/live")
        try await server.start()
        let url = "rtsp://127.0.0.1:\(try #require(server.port))/live"
        let session = try await RTSPSession.connect(to: url)
        let events = Mutex<[RTSPSessionEvent]>([])
        let listening = session.events
        let listener = Task { for await event in listening { events.withLock { $0.append(event) } } }
        defer { listener.cancel() }
        let units = try session.accessUnits()
        let start = WallClockTime.now()
        let pusher = Task {
            // 40 pictures 40 ms apart, the size changing at the 21st; their capture times an hour later from the
            // 31st (the sender setting its clock), their RTP time still 3600 ticks apart.
            for (index, nalUnits) in (small + large).enumerated() {
                let offset = Double(index) * 0.04 + (index >= 30 ? 3600 : 0)
                source.push(
                    .video(AccessUnit(codec: .h264, timestamp: UInt64(index) * 3600, nalUnits: nalUnits)),
                    capturedAt: WallClockTime(ntp: start.ntp &+ UInt64(offset * 4_294_967_296)))
                try await Task.sleep(for: .milliseconds(40))
            }
            source.finish()
        }
        var received = 0
        for try await _ in units { received += 1 }
        try await pusher.value
        await session.teardown()
        await listener.value  // the events end with the session
        await server.stop()
        #expect(received == 40)
        let told = events.withLock { $0 }
        let changes = told.filter { if case .parameterSetsChanged(0) = $0 { true } else { false } }
        #expect(changes.count == 1, "\(told)")
        let resolutions = told.compactMap { event -> [Int]? in
            if case .resolutionChanged(0, let width, let height) = event { [width, height] } else { nil }
        }
        #expect(resolutions == [[640, 480]], "\(told)")
        let jumps = told.compactMap { event -> Duration? in
            if case .clockJumped(0, let step) = event { step } else { nil }
        }
        #expect(jumps.count == 1, "\(told)")
        if let jump = jumps.first {
            #expect(abs(Double(jump.components.seconds) - 3600) <= 1, "\(jump)")
        }
    }
}
