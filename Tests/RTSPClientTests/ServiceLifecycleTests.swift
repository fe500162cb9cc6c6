import Foundation
import Logging
import RTSPClient
import RTSPServer
import ServiceLifecycle
import TestSupport
import Testing

/// `camera-service` (the README's "Running unattended": a `ServiceGroup` of an `RTSPServer`, an `RTSPRelay` and a
/// `SessionRecorder`) relaying gst-rtsp-server, stopped by SIGTERM while a viewer plays: it exits within 2 s, the
/// viewer's session ends on the relay's BYE (cleanly, not with a broken connection), and the recording plays whole in
/// FFmpeg.
@Suite(.serialized) struct ServiceLifecycleTests {
    static let binary = URL(fileURLWithPath: RTPDumpBinary.path).deletingLastPathComponent()
        .appendingPathComponent("camera-service").path

    /// A recorder and a relay waiting for a camera that is down (their first connect retried for as long as it
    /// takes) end at once on graceful shutdown, without an error: waiting in the connect held the group's shutdown
    /// until the camera answered (a clean-clone run's camera-service, under load, did not exit within 10 s).
    @Test(.timeLimit(.minutes(1))) func servicesWaitingForTheirCameraShutDownAtOnce() async throws {
        let url = "rtsp://127.0.0.1:\(try await ScriptedServer.freePort())/camera"
        var options = RTSPSessionOptions()
        options.reconnection = .init(includesFirstConnect: true)
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("down-\(UUID()).mp4").path
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        let group = ServiceGroup(
            services: [
                server, RTSPRelay(url, options: options, server: server, path: "/camera"),
                SessionRecorder(url, options: options, to: recording),
            ], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(500))  // both in their connect's retries by now
        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        // The time limit cancels this test's task, and with it the group (not a test that hangs).
        try await withTaskCancellationHandler { try await running.value } onCancel: { running.cancel() }
        #expect(ContinuousClock.now - asked < .seconds(3))
        #expect(!FileManager.default.fileExists(atPath: recording))  // nothing was recorded
    }

    @Test func sigtermShutsTheGroupDownInOrderWithinTwoSeconds() async throws {
        let camera = try await RealServer(["--frames", "100000", "--lifetime", "120"])
        defer { camera.stop() }
        let recording = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID()).mp4").path
        defer { try? FileManager.default.removeItem(atPath: recording) }
        let port = Int.random(in: 20_000..<32_768)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [camera.url, String(port), recording]
        // What the service logged (swift-log's default handler writes to standard output), to say why it failed.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("service-\(UUID()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        FileManager.default.createFile(atPath: log, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let logged = { String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self) }

        // The relay mounts its path once its camera plays (on a busy machine gst-rtsp-server may take seconds to
        // prepare the media): until then the server refuses, or is not up yet.
        var viewer: RTSPSession?
        var refused: Error?
        let started = ContinuousClock.now
        while viewer == nil, process.isRunning, ContinuousClock.now - started < .seconds(60) {
            do {
                viewer = try await RTSPSession.connect(to: "rtsp://127.0.0.1:\(port)/camera")
            } catch {
                refused = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let why = "the relay did not serve /camera (last refusal: \(String(describing: refused))); it logged:\n"
        let session = try #require(viewer, "\(why)\(logged())")
        let ended = Task {
            var last: RTSPSessionEvent?
            for await event in session.events { last = event }
            return last
        }
        var iterator = try session.accessUnits().makeAsyncIterator()
        for _ in 0..<30 { _ = try await iterator.next() }

        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        while process.isRunning, ContinuousClock.now - signalled < .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let took = ContinuousClock.now - signalled
        guard !process.isRunning else {
            // Where it hangs: every thread's stack (gdb, attached for the moment), before the defer kills it.
            let stacks = try? await runProgram(
                "/usr/bin/gdb", ["-p", String(process.processIdentifier), "-batch", "-ex", "thread apply all bt 16"])
            let threads = stacks?.stdout ?? "(no gdb)"
            let why = "the group did not shut down within \(took); the service logged:\n\(logged())"
            Issue.record("\(why)\nits threads:\n\(threads)")
            return
        }
        #expect(took < .seconds(2), "the group took \(took) to shut down; the service logged:\n\(logged())")
        #expect(process.terminationStatus == 0, "the service logged:\n\(logged())")
        while try await iterator.next() != nil {}  // what was on its way, then the end the BYE made
        let last = await ended.value
        guard case .ended(nil) = last else {
            Issue.record("the viewer's session did not end cleanly on BYE: \(String(describing: last))")
            return
        }

        let decoded = try await runProgram(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", recording, "-f", "framemd5", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "FFmpeg: \(decoded.stderr)")
        let frames = decoded.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        // The recorder's own session to the camera ran about as long as the viewer played (whose 30 units may start
        // in the relay's cached group of pictures, before it joined): a second of the camera's 30 fps at least.
        #expect(frames >= 25, "\(frames) frames recorded")
    }
}
