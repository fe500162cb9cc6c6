import MediaDecoding
import FFmpegDecoding
import Foundation
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing
import VideoDecoding

/// A reconnecting session against the real server while it is killed and started again, and while it
/// hangs (SIGSTOP, then SIGCONT): decoding goes on after each return, in the same sequence of frames, and
/// every frame decoded is whole. How quickly it comes back is measured by `Benchmarks/chaos-reconnect.py`
/// (timing does not belong in the suite); here, the waits are the policy's and are read from its log.
@Suite(.serialized) struct RealServerReconnectionTests {
    static let serverArguments = ["--frames", "100000", "--lifetime", "120"]

    /// Frames of a session, read with a bound: a session that never comes back is torn down, which ends
    /// the sequence (the test then fails on what it did not get, rather than hanging).
    struct Frames {
        var iterator: DecodedFrames<RTSPAccessUnits, FFmpegVideoDecoder>.AsyncIterator
        var frames: [I420Frame] = []

        /// Reads until `count` more frames have come after the next discontinuity (or after now, when
        /// `afterBreak` is false).
        mutating func read(_ count: Int, afterBreak: Bool) async throws {
            var seenBreak = !afterBreak
            var after = 0
            while after < count, let frame = try await iterator.next() {
                frames.append(frame)
                if frame.isDiscontinuity { seenBreak = true }
                if seenBreak { after += 1 }
            }
        }
    }

    @Test(arguments: [RTSPSessionOptions.Transport.tcp, .udp])
    func decodingGoesOnAcrossRestartsAndAHang(transport: RTSPSessionOptions.Transport) async throws {
        var server = try await RealServer(Self.serverArguments)
        defer { server.stop() }
        let log = CapturedLog()
        var options = RTSPSessionOptions(transport: transport)
        options.inactivityTimeout = .seconds(1)
        options.requestTimeout = .seconds(2)
        options.reconnection = .init(initialDelay: .milliseconds(200), maxDelay: .seconds(1))
        options.logger = log.logger(level: .notice)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(90))
            await session.teardown()
        }
        defer { watchdog.cancel() }
        var reader = Frames(
            iterator: try session.accessUnits().frames { _, codec in try FFmpegVideoDecoder(codec: codec) }
                .makeAsyncIterator())
        try await reader.read(30, afterBreak: false)
        for _ in 0..<2 {  // killed, and started again a second later
            server.stop()
            try await Task.sleep(for: .seconds(1))
            server = try await server.restarted(Self.serverArguments)
            try await reader.read(30, afterBreak: true)
        }
        server.signal(SIGSTOP)  // hangs: the connection lives, nothing comes
        try await Task.sleep(for: .seconds(3))
        server.signal(SIGCONT)
        try await reader.read(30, afterBreak: true)
        let statistics = await session.statistics()
        await session.teardown()

        let frames = reader.frames
        #expect(frames.filter(\.isDiscontinuity).count == 3)
        #expect(frames.count >= 120)
        #expect(frames.allSatisfy { !$0.mayBeDamaged && $0.width == 320 && $0.height == 240 })
        #expect(statistics.reconnects == 3)
        #expect(statistics.lastBreak?.code == .noMedia)
        #expect(statistics.timeWithoutMedia >= .seconds(4))  // the two restarts' second each, and the hang
        #expect(statistics.tracks.first?.lost == 0)
        // Every wait the session took stayed within the policy's bound.
        let waits = log.lines(containing: "playing again in ").compactMap { line -> Double? in
            guard let range = line.range(of: "playing again in ") else { return nil }
            return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        #expect(waits.count >= 3)
        #expect(waits.allSatisfy { $0 <= 1.0 }, "\(waits)")
        log.expectNoCredentials(from: "the reconnecting session")
    }

    /// A camera's audio across a restart: the reconnecting session's `media()` goes on with every track,
    /// the first unit of each after the break flagged, no loss counted for the break (the new source starts
    /// its own numbering), and the audio after it dated on the sender's clock again.
    @Test func audioGoesOnAcrossARestart() async throws {
        let arguments = ["--audio", "--frames", "100000", "--lifetime", "120", "--rtcp-interval", "300"]
        var server = try await RealServer(arguments)
        defer { server.stop() }
        var options = RTSPSessionOptions()
        options.inactivityTimeout = .seconds(1)
        options.requestTimeout = .seconds(2)
        options.reconnection = .init(initialDelay: .milliseconds(200), maxDelay: .seconds(1))
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            await session.teardown()
        }
        defer { watchdog.cancel() }
        #expect(session.tracks.map(\.format.kind) == [.video, .audio, .audio])
        var units = try session.media().makeAsyncIterator()
        var before = [0, 0, 0]
        while before.min() ?? 0 < 30, let unit = try await units.next() { before[unit.track] += 1 }
        server.stop()
        try await Task.sleep(for: .seconds(1))
        server = try await server.restarted(arguments)
        var after = [0, 0, 0]
        var breaks = [0, 0, 0]
        var lostAudio = 0
        var datedAudioAfter = 0
        while after.min() ?? 0 < 60, let unit = try await units.next() {
            if unit.isDiscontinuity { breaks[unit.track] += 1 }
            guard breaks[unit.track] > 0 else { continue }  // still the first connection's
            after[unit.track] += 1
            if case .audio(let frame) = unit {
                lostAudio += frame.lostPacketsBefore
                if frame.captureTime != nil { datedAudioAfter += 1 }
            }
        }
        let statistics = await session.statistics()
        await session.teardown()
        #expect(breaks == [1, 1, 1])
        #expect(after.allSatisfy { $0 >= 60 }, "\(after)")
        #expect(lostAudio == 0)
        #expect(datedAudioAfter > 60)
        #expect(statistics.reconnects == 1)
    }
}
