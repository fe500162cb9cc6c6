import Foundation
import H26x
import MediaPipeline
import NIOCore
import NIOPosix
import RTP
import RTSPClient
import RTSPServer
import SDP
import TestSupport
import Synchronization
import Testing

/// The server on the public API, in process: units an application pushes, played by this library's client; and
/// a client that stops reading, which must not hold the others back.
@Suite(.serialized, .loadExclusive) struct RTSPServerTests {
    /// A picture of `size` bytes: an IDR slice every `keyframeEvery`, else a P slice (the bytes need not decode:
    /// the client counts and compares them).
    static func picture(_ index: Int, size: Int, keyframeEvery: Int = 10) -> AccessUnit {
        let isKeyframe = index % keyframeEvery == 0
        var slice = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size)
        slice[0] = isKeyframe ? 0x65 : 0x41
        let sps: [UInt8] = [
            0x67, 0x42, 0xC0, 0x1E, 0xDA, 0x02, 0x80, 0xBF, 0xE5, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04,
        ]
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        return AccessUnit(
            codec: .h264, timestamp: UInt64(index) * 3000, nalUnits: isKeyframe ? [sps, pps, slice] : [slice])
    }

    static func started(_ source: MediaSource, writeBufferLimit: Int = 2 << 20) async throws -> (RTSPServer, String) {
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.writeBufferLimit = writeBufferLimit
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/live")
        try await server.start()
        return (server, "rtsp://127.0.0.1:\(try #require(server.port))/live")
    }

    /// Servers run on the process's shared event loops: ten started start no event loop group of their own (a group
    /// per server had a thread per core each), and stopping them leaves the shared loops running for the next. The
    /// count is of NIO's own group threads by name ("NIO-ELT-"; the shared ones are "NIO-SGLTN-"), not of all the
    /// process's threads, which Swift's executor and other tests' work start and end as they please.
    @Test func serversShareTheProcesssEventLoops() async throws {
        func groupThreads() -> Int {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            return tasks.filter { task in
                let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
                return name.hasPrefix("NIO-ELT-")
            }.count
        }
        let before = groupThreads()
        var servers: [RTSPServer] = []
        for _ in 0..<10 {
            let server = RTSPServer(configuration: RTSPServer.Configuration(host: "127.0.0.1", port: 0))
            try await server.start()
            servers.append(server)
        }
        #expect(groupThreads() == before, "\(groupThreads() - before) event loop threads more for 10 servers")
        for server in servers { await server.stop() }
        let source = try MediaSource(video: .h264)
        let (server, url) = try await Self.started(source)
        let described = try await RTSPSession.describe(url)
        #expect(described.offeredTracks.count == 1)
        await described.teardown()
        await server.stop()
    }

    /// Pushed units come out of a session on the server, whole, in order, with their spacing in time.
    @Test func pushedUnitsArePlayedByASession() async throws {
        let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        let source = try MediaSource(formats: [format])
        let (server, url) = try await Self.started(source)
        let session = try await RTSPSession.connect(to: url)
        let units = try session.accessUnits()
        let pusher = Task {
            await source.waitForSubscriber()
            for index in 0..<60 {
                source.push(.video(Self.picture(index, size: 3000 + index * 97)))
                try await Task.sleep(for: .milliseconds(5))
            }
            source.finish()
        }
        var received: [AccessUnit] = []
        for try await unit in units { received.append(unit) }
        try await pusher.value
        #expect(received.count == 60)
        for (index, unit) in received.enumerated() {
            let sent = Self.picture(index, size: 3000 + index * 97)
            #expect(unit.nalUnits.map { Array($0.bytes) } == sent.nalUnits.map { Array($0.bytes) }, "unit \(index)")
            #expect(unit.timestamp - received[0].timestamp == UInt64(index) * 3000)
            #expect(unit.isComplete)
        }
        await server.stop()
    }

    /// A session counts from its SETUP until its TEARDOWN or its connection's end, paused or not: what a server's
    /// owner waits on before stopping (a source's subscribers leave at PAUSE, before rtspsrc's TEARDOWN).
    @Test func aSessionCountsUntilItIsTornDownOrItsConnectionCloses() async throws {
        let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        let source = try MediaSource(formats: [format])
        let (server, url) = try await Self.started(source)
        /// Waits up to 5 s for `condition` (the server counts once it has answered).
        func eventually(_ condition: () -> Bool) async throws -> Bool {
            for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
            return condition()
        }
        let session = try await RTSPSession.connect(to: url)
        #expect(server.sessionCount == 1 && source.subscriberCount == 1)
        try await session.pause()
        #expect(try await eventually { source.subscriberCount == 0 })
        #expect(server.sessionCount == 1, "a paused session is a session")
        await session.teardown()
        #expect(try await eventually { server.sessionCount == 0 })

        let dropped = try await Self.playWithoutReading(url)
        #expect(try await eventually { server.sessionCount == 1 })
        try await dropped.close()
        #expect(try await eventually { server.sessionCount == 0 }, "its connection closed without a TEARDOWN")
        await server.stop()
    }

    /// A client that set up and played, then stopped reading: the other client gets every unit, and the stalled
    /// one is skipped (to keyframes) instead of queueing the stream. The server's events tell both viewers
    /// joining, the stalled one falling behind once, and each leaving with what it was skipped.
    @Test func aClientThatStopsReadingDoesNotHoldTheOthersBack() async throws {
        let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        let source = try MediaSource(formats: [format])
        // 1 MiB queued per client at most: the reading client, however loaded the machine, stays far below it
        // (the stream is 6 MB/s); the stalled one reaches it once its socket buffers are full.
        let (server, url) = try await Self.started(source, writeBufferLimit: 1 << 20)
        let events = Mutex<[RTSPServerEvent]>([])
        let listening = server.events()
        let listener = Task { for await event in listening { events.withLock { $0.append(event) } } }
        defer { listener.cancel() }
        let stalled = try await Self.playWithoutReading(url)
        let session = try await RTSPSession.connect(to: url)
        let units = try session.accessUnits()
        let count = 300
        let pusher = Task {
            while source.subscriberCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
            for index in 0..<count {
                source.push(.video(Self.picture(index, size: 60_000)))
                try await Task.sleep(for: .milliseconds(10))
            }
            source.finish()
        }
        var received = 0
        var complete = true
        for try await unit in units {
            received += 1
            complete = complete && unit.isComplete
        }
        try await pusher.value
        #expect(received == count && complete)
        // 18 MB went out; the stalled client took a few MB (its socket buffers and its queue) and was skipped.
        #expect(source.skippedUnits > count / 4, "skipped \(source.skippedUnits)")
        let skippedBeforeClosing = source.skippedUnits
        try await stalled.close()
        var left: [String: Int] = [:]
        for _ in 0..<500 where left.count < 2 {
            try await Task.sleep(for: .milliseconds(10))
            for case .viewerLeft(_, _, let session, let skipped) in events.withLock({ $0 }) { left[session] = skipped }
        }
        let told = events.withLock { $0 }
        let joined = told.compactMap { if case .viewerJoined("/live", "127.0.0.1", let id) = $0 { id } else { nil } }
        let behind = told.compactMap { if case .viewerSkipping("/live", "127.0.0.1", let id) = $0 { id } else { nil } }
        #expect(Set(joined).count == 2 && Set(left.keys) == Set(joined), "\(told)")
        // The stalled one fell behind once (it never read again); the reader never did.
        #expect(behind.count == 1, "\(told)")
        let stalledID = try #require(behind.first)
        #expect(left[stalledID] == skippedBeforeClosing, "\(told)")
        #expect(left.filter { $0.key != stalledID }.values.allSatisfy { $0 == 0 }, "\(told)")
        await server.stop()
    }

    /// Connections are bounded: one over the limit is closed at once, and one that sends nothing and holds no
    /// session is closed after the session timeout, so idle peers cannot hold every place.
    @Test(.timeLimit(.minutes(1))) func idleAndExcessConnectionsAreClosed() async throws {
        let source = try MediaSource(formats: [.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))]
        )
        var configuration = RTSPServer.Configuration(host: "127.0.0.1", port: 0)
        configuration.maxConnections = 1
        configuration.sessionTimeout = .seconds(2)
        let server = RTSPServer(configuration: configuration)
        server.mount(source, at: "/live")
        try await server.start()
        let port = try #require(server.port)
        let group = MultiThreadedEventLoopGroup.singleton
        let idle = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        try await Task.sleep(for: .milliseconds(200))
        let excess = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
        let excessClosed = ContinuousClock.now
        try await excess.closeFuture.get()
        #expect(ContinuousClock.now - excessClosed < .seconds(1))
        let started = ContinuousClock.now
        try await idle.closeFuture.get()
        let waited = ContinuousClock.now - started
        #expect(waited > .seconds(1) && waited < .seconds(5), "closed after \(waited)")
        await server.stop()
    }

    /// SETUP and PLAY over a plain TCP connection that then reads nothing more (its receive buffer small).
    static func playWithoutReading(_ url: String) async throws -> any Channel {
        let path = try RTSPURL(url)
        let collector = SessionCollector()
        // The collector is in the pipeline before anything is asked, so that no answer passes it by.
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_rcvbuf), value: 32 << 10)
            .channelOption(.autoRead, value: false)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: path.host, port: path.port).get()
        let setup =
            "SETUP \(url)/trackID=0 RTSP/1.0\r\nCSeq: 1\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: setup))
        // Reads until the SETUP answer (and its session) is in; then PLAY, and nothing more is read.
        var session: String?
        for _ in 0..<500 where session == nil {
            channel.read()
            try await Task.sleep(for: .milliseconds(10))
            session = collector.session
        }
        guard let session else { throw ServerError(description: "no SETUP answer") }
        try await channel.writeAndFlush(
            ByteBuffer(string: "PLAY \(url) RTSP/1.0\r\nCSeq: 2\r\nSession: \(session)\r\n\r\n"))
        return channel
    }
}

/// Reads the Session header of the first answer.
final class SessionCollector: ChannelInboundHandler, @unchecked Sendable {  // read on the loop, polled by the test
    typealias InboundIn = ByteBuffer
    private let lock = NSLock()
    private var text = ""
    var session: String? {
        lock.withLock {
            text.split(separator: "\r\n").first { $0.hasPrefix("Session:") }.map {
                String($0.dropFirst(8).split(separator: ";")[0]).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        lock.withLock { text += String(buffer: buffer) }
    }
}

/// A session's packets are read once: a second sequence made of them is refused with the reason and what to do
/// instead (iterating both once trapped the process), and a second iterator throws rather than trap.
@Suite struct SecondConsumerTests {
    @Test func aSecondSequenceIsRefusedAndASecondIteratorThrows() async throws {
        let formats: [MediaFormat] = [
            .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1)),
            .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
        ]
        let source = try MediaSource(formats: formats)
        let (server, url) = try await RTSPServerTests.started(source)
        let session = try await RTSPSession.connect(to: url)
        let video = try session.accessUnits()
        do {
            _ = try session.audioFrames()
            Issue.record("a second sequence of the session's packets was made")
        } catch let error as RTSPClientError {
            #expect(error.code == .invalidCall)
            #expect(error.reason.contains("accessUnits()") && error.reason.contains("media()"), "\(error.reason)")
        }
        #expect(throws: RTSPClientError.self) { try session.media() }
        // Iterated from two tasks: the first reads, the second (started once the first has read a unit, so that
        // which one reads does not depend on how the tasks are scheduled) is told, and nothing traps.
        let (firstUnit, signal) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            var count = 0
            for try await _ in video {
                count += 1
                if count == 1 { signal.yield() }
            }
            return count
        }
        await source.waitForSubscriber()
        source.push(.video(RTSPServerTests.picture(0, size: 1000)))
        for await _ in firstUnit { break }
        let second = Task {
            var iterator = session.packets.makeAsyncIterator()
            _ = try await iterator.next()
        }
        await #expect(throws: RTSPClientError.self) { try await second.value }
        for index in 1..<10 { source.push(.video(RTSPServerTests.picture(index, size: 1000))) }
        source.finish()
        #expect(try await first.value == 10)
        await server.stop()
    }
}

/// A source made from a codec alone (an encoder's output, a file's Annex B) announces the parameter sets of
/// the first keyframe pushed: before it, DESCRIBE gives none; after, the keyframe's SPS and PPS, and its profile.
@Suite struct SourceFormatFromFirstKeyframeTests {
    @Test func aSourceOfACodecAnnouncesItsFirstKeyframesParameterSets() async throws {
        let source = try MediaSource(video: .h264)
        let (server, url) = try await RTSPServerTests.started(source)
        let before = try await RTSPSession.describe(url)
        #expect(before.offeredTracks.first?.format.videoFormat?.parameterSetAttributes.isEmpty == true)
        await before.teardown()
        let keyframe = RTSPServerTests.picture(0, size: 1000)
        source.push(.video(keyframe))
        let after = try await RTSPSession.describe(url)
        let format = try #require(after.offeredTracks.first?.format.videoFormat)
        await after.teardown()
        var sets = ParameterSets(codec: .h264)
        for (name, value) in format.parameterSetAttributes { _ = sets.addValid(sdpParameter: name, value: value) }
        #expect(sets.all.map { Array($0.bytes) } == keyframe.nalUnits.prefix(2).map { Array($0.bytes) })
        #expect(format.profileLevelID?.lowercased() == "42c01e")
        await server.stop()
    }
}

/// A unit prints as one line a person reads, not a dump of its buffers.
@Suite struct UnitDescriptionTests {
    @Test func unitsPrintAsOneLine() {
        var unit = RTSPServerTests.picture(0, size: 1000)
        unit.captureTime = WallClockTime(ntp: (1_767_225_600 + WallClockTime.unixEpochOffset) << 32 | 1 << 31)
        #expect(
            "\(MediaUnit.video(unit))"
                == "H.264 picture, track 0, RTP time 0: keyframe, 3 NAL units, 1020 bytes, complete, captured 2026-01-01T00:00:00.500000Z"
        )
    }
}
