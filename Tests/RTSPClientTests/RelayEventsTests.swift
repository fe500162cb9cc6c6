import Foundation
import RTSPClient
import RTSPServer
import Synchronization
import TestSupport
import Testing

/// An ``RTSPRelay`` of gst-rtsp-server, played by a viewer, while the camera hangs for 3 s (SIGSTOP, then SIGCONT):
/// the server's events tell the viewer joining, the camera lost once during the hang (its relay's session
/// stalled) and back after it with the gap, and the viewer leaving.
@Suite struct RelayEventsTests {
    @Test func aCameraThatHangsIsToldLostAndBack() async throws {
        let camera = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { camera.stop() }
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        try await server.start()
        let port = try #require(server.port)
        let events = Mutex<[(RTSPServerEvent, ContinuousClock.Instant)]>([])
        let listening = server.events()
        let listener = Task { for await event in listening { events.withLock { $0.append((event, .now)) } } }
        defer { listener.cancel() }
        var options = RTSPSessionOptions()
        options.stallThreshold = .milliseconds(800)
        let relay = RTSPRelay(camera.url, options: options, server: server, path: "/door")
        let relaying = Task { try await relay.run() }
        defer { relaying.cancel() }

        // The relay mounts its path once its camera plays: until then the server answers 404.
        var viewer: RTSPSession?
        for _ in 0..<100 where viewer == nil {
            viewer = try? await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/door")
            if viewer == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let session = try #require(viewer, "the relay never served /door")
        var iterator = try session.accessUnits().makeAsyncIterator()
        for _ in 0..<20 { _ = try await iterator.next() }
        let hung = ContinuousClock.now
        camera.signal(SIGSTOP)
        try await Task.sleep(for: .seconds(3))
        let resumed = ContinuousClock.now  // before SIGCONT: the camera may be told back before this task runs again
        camera.signal(SIGCONT)
        for _ in 0..<20 { _ = try await iterator.next() }
        await session.teardown()
        for _ in 0..<500 {
            if events.withLock({ $0.contains { if case .viewerLeft = $0.0 { true } else { false } } }) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        relaying.cancel()
        _ = try? await relaying.value
        await server.stop()

        let told = events.withLock { $0 }
        let kinds = told.map(\.0)
        let lost = told.compactMap { event, at in
            if case .sourceLost("/door", let reason) = event { (reason, at) } else { nil }
        }
        let back = told.compactMap { event, at in
            if case .sourceBack("/door", let gap) = event { (gap, at) } else { nil }
        }
        #expect(lost.count == 1 && back.count == 1, "\(kinds)")
        let (reason, lostAt) = try #require(lost.first)
        let (gap, backAt) = try #require(back.first)
        #expect(reason.hasPrefix("no media for"), "\(reason)")
        #expect(lostAt > hung && lostAt < resumed)  // told during the hang
        // The gap runs from the last packet the relay read before the hang, and what the camera had written before
        // SIGSTOP the kernel still delivers during it: a loaded machine's run saw 2.95 s. Half a second of that.
        #expect(backAt >= resumed && gap >= .milliseconds(2500), "\(gap)")
        let joined = kinds.compactMap { if case .viewerJoined("/door", "127.0.0.1", let id) = $0 { id } else { nil } }
        let left = kinds.compactMap { if case .viewerLeft("/door", "127.0.0.1", let id, _) = $0 { id } else { nil } }
        #expect(joined.count == 1 && left == joined, "\(kinds)")
    }
}
