import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
import NIOConcurrencyHelpers
import H26x
import PacketCapture
import Audio
@_spi(SansIO) import RTP
@_spi(SansIO) import RTSP
import RTSPClient
import SRTP
import TestSupport
import Testing

/// Each fault a real server will not produce on demand ends in the documented behaviour, within its
/// timeout: a typed error, or the session carrying on.
@Suite struct ScriptedServerTests {
    /// Short timeouts, so that every case ends in a second or two. Requests get 3 s: a request that must be
    /// answered should not time out on a loaded machine; the one test of a request timeout waits for it.
    static let quick = RTSPSessionOptions(
        connectTimeout: .seconds(2), requestTimeout: .seconds(3), udpFallbackTimeout: .milliseconds(400),
        inactivityTimeout: .milliseconds(800), teardownTimeout: .milliseconds(500))

    /// `quick`, for tests that end by the server closing the connection: silence must not end them first
    /// when a loaded machine reads the close late (a full parallel run saw 800 ms pass between the last packet
    /// and the end of the stream).
    static let untilClosed = {
        var options = quick
        options.inactivityTimeout = .seconds(30)
        return options
    }()

    /// Reads packets until the sequence ends; returns them and the error it ended with.
    static func drain(_ session: RTSPSession, limit: Int = 1000) async -> ([RTSPReceivedPacket], (any Error)?) {
        var packets: [RTSPReceivedPacket] = []
        do {
            for try await packet in session.packets {
                packets.append(packet)
                if packets.count >= limit { break }
            }
        } catch {
            TestSecrets.expectNone(in: "\(error)", from: "a session's error")
            return (packets, error)
        }
        return (packets, nil)
    }

    /// A URL that cannot be played is an `RTSPClientError` too (`.invalidURL`), as every other failure of a
    /// session is, and no connection is tried: one error type to catch, as the README says.
    @Test(arguments: ["http://camera/stream", "rtsp://127.0.0.1:9/a b", "rtsp://:554/x", "rtsp://cam:99999/"])
    func aURLThatCannotBePlayedIsInvalidURL(url: String) async {
        let error = await #expect(throws: RTSPClientError.self) { try await RTSPSession.connect(to: url) }
        #expect(error?.code == .invalidURL, "\(String(describing: error))")
        let described = await #expect(throws: RTSPClientError.self) { try await RTSPSession.describe(url) }
        #expect(described?.code == .invalidURL)
    }

    @Test func anEndless401IsUnauthorizedAfterOneRetry() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.respond(
                request, "401 Unauthorized", ["WWW-Authenticate: Digest realm=\"cam\", nonce=\"n\(request.cseq ?? 0)\""]
            )
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.credentials = Credentials(user: "admin", password: "hunter2")
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: options)
        }
        #expect(error?.code == .unauthorized)
        #expect(error?.description.contains("hunter2") == false)
        TestSecrets.expectNone(in: "\(String(describing: error))", from: "the 401 error")
        #expect(server.methods == ["OPTIONS", "OPTIONS"])
    }

    @Test func aStaleNonceIsAnsweredOnceMore() async throws {
        let server = try await ScriptedServer { request, connection in
            let authorization = request.header("Authorization") ?? ""
            if authorization.isEmpty {
                connection.respond(
                    request, "401 Unauthorized", ["WWW-Authenticate: Digest realm=\"cam\", nonce=\"old\""])
            } else if authorization.contains("nonce=\"old\"") {
                connection.respond(
                    request, "401 Unauthorized", ["WWW-Authenticate: Digest realm=\"cam\", nonce=\"new\", stale=true"])
            } else {
                connection.answerNormally(request)
                if request.method == "PLAY" { connection.sendRTP(count: 3) }
            }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.credentials = Credentials(user: "admin", password: "pw")
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (packets, _) = await Self.drain(session, limit: 3)
        #expect(packets.count == 3)
        await session.teardown()
        #expect(server.methods.prefix(3) == ["OPTIONS", "OPTIONS", "OPTIONS"])
    }

    @Test func packetsSentBeforeThePLAYAnswerAreDelivered() async throws {
        let server = try await ScriptedServer { request, connection in
            if request.method == "PLAY" {
                connection.sendRTP(count: 5)  // media first, then the answer
                connection.answerNormally(request)
                connection.sendRTP(count: 5, firstSequence: 6)
            } else {
                connection.answerNormally(request)
            }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.quick)
        let (packets, _) = await Self.drain(session, limit: 10)
        #expect(packets.map(\.packet.sequenceNumber) == Array(1...10))
        await session.teardown()
        #expect(server.methods.last == "TEARDOWN")
    }

    /// Camera dialect: every answer's `CSeq` ends in blanks and a tab, and interleaved frames come on a
    /// channel no track was set up on (7) before and between the media. The answers are matched, the
    /// stray frames dropped and counted, the media delivered.
    @Test func aCSeqWithTrailingBlanksAndFramesOnAChannelNeverSetUp() async throws {
        let server = try await ScriptedServer { request, connection in
            var answer = ""
            switch request.method {
            case "DESCRIBE":
                let sdp = ScriptedServer.sdp
                answer = "Content-Type: application/sdp\r\nContent-Length: \(sdp.utf8.count)\r\n\r\n\(sdp)"
            case "SETUP": answer = "Session: 4711\r\nTransport: \(request.header("Transport") ?? "")\r\n\r\n"
            default: answer = "Session: 4711\r\nPublic: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN\r\n\r\n"
            }
            if request.method == "PLAY" { connection.sendRTP(count: 2, channel: 7) }
            connection.send(Array("RTSP/1.0 200 OK\r\nCSeq: \(request.cseq ?? 0)  \t\r\n\(answer)".utf8))
            if request.method == "PLAY" {
                connection.sendRTP(count: 5)
                connection.sendRTP(count: 1, channel: 7)
                connection.sendRTP(count: 5, firstSequence: 6)
            }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.quick)
        let (packets, _) = await Self.drain(session, limit: 10)
        #expect(packets.map(\.packet.sequenceNumber) == Array(1...10))
        #expect(await session.statistics().unknownChannelFrames == 3)
        await session.teardown()
        #expect(server.methods.last == "TEARDOWN")
    }

    /// Keepalives that cameras accept (issue 19): one camera ignores GET_PARAMETER (GW4089IP); another
    /// refuses GET_PARAMETER and OPTIONS and answers SET_PARAMETER with a 400 carrying the previous CSeq.
    /// With a 2 s session timeout (a keepalive every second) and media flowing, both sessions live past
    /// three timeout periods, and the keepalives move on to methods the camera does not refuse: the silent
    /// camera's GET_PARAMETER is given up at the next keepalive's time, within the request timeout of 3 s.
    @Test(arguments: ["silent GET_PARAMETER", "400 with the old CSeq"])
    func keepalivesACameraRefusesOrIgnoresNeverEndTheSession(camera: String) async throws {
        let server = try await ScriptedServer { request, connection in
            let session = "abc;timeout=2"
            switch (camera, request.method) {
            case ("silent GET_PARAMETER", "GET_PARAMETER"): return
            case ("400 with the old CSeq", "GET_PARAMETER"): connection.respond(request, "405 Method Not Allowed")
            case ("400 with the old CSeq", "OPTIONS") where request.header("Session") != nil:
                connection.respond(request, "501 Not Implemented")
            case ("400 with the old CSeq", "SET_PARAMETER"):
                let old = RTSPMessage(
                    kind: request.kind, headers: [("CSeq", "\((request.cseq ?? 1) - 1)")], body: [])
                connection.respond(old, "400 Bad Request")
            case (_, "PLAY"):
                connection.answerNormally(request, session: session)
                connection.streamRTP(every: .milliseconds(50))
            default: connection.answerNormally(request, session: session)
            }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.inactivityTimeout = .seconds(5)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let consumer = Task { await Self.drain(session, limit: 1_000_000) }
        try await Task.sleep(for: .seconds(7))
        await session.teardown()
        let (packets, error) = await consumer.value
        #expect(error == nil)
        // Media came until the teardown, past three timeout periods. (Not a count of packets: a loaded machine's
        // event loops run the 50 ms timer late; one full run had 100 in the 7 s.)
        let span = try #require(packets.last).arrival - (try #require(packets.first)).arrival
        #expect(span > .seconds(6), "media for \(span) of the 7 s")
        let keepalives = server.methods.filter { ["GET_PARAMETER", "OPTIONS", "SET_PARAMETER"].contains($0) }
        #expect(keepalives.count >= 4)
        #expect(Set(keepalives).count >= 2)  // it moved on from the first method
        #expect(server.methods.last == "TEARDOWN")
    }

    @Test func aMissingSessionTimeoutMeansSixtySeconds() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request, session: "abc")
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.quick)
        #expect(session.tracks.count == 1)
        await session.teardown()
        // No keepalive in the second the session lived (the first is due after 30 s).
        #expect(!server.methods.contains("GET_PARAMETER"))
    }

    @Test func aDroppedConnectionMidStreamIsConnectionClosed() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" {
                connection.sendRTP(count: 4)
                connection.close()
            }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.untilClosed)
        let (packets, error) = await Self.drain(session)
        #expect(packets.count == 4)
        #expect((error as? RTSPClientError)?.code == .connectionClosed)
    }

    /// A connection reset mid-stream (the server's socket closed with SO_LINGER 0): the error says so in the
    /// system's words, not as NIO's `read(descriptor:pointer:size:) ... (errno: 104)`.
    @Test func aResetSaysConnectionResetInPlainWords() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            guard request.method == "PLAY" else { return }
            connection.sendRTP(count: 4)
            guard let socket = connection.channel as? any SocketOptionProvider else { return connection.close() }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in connection.close() }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.untilClosed)
        let (_, error) = await Self.drain(session)
        let failure = try #require(error as? RTSPClientError)
        #expect(failure.code == .connectionClosed)
        #expect(!failure.reason.contains("errno") && !failure.reason.contains("descriptor"), "\(failure)")
        #expect(failure.reason.contains("Connection reset by peer"), "\(failure)")
    }

    @Test func silenceWhilePlayingIsNoMedia() async throws {
        let server = try await ScriptedServer { request, connection in connection.answerNormally(request) }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.quick)
        let (_, error) = await Self.drain(session)
        #expect((error as? RTSPClientError)?.code == .noMedia)
        // The RTSP connection was alive: the server's session is freed rather than left to time out.
        #expect(server.methods.last == "TEARDOWN")
    }

    @Test func aRedirectIsFollowedToTheOtherServer() async throws {
        let target = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" { connection.sendRTP(count: 2) }
        }
        defer { Task { await target.stop() } }
        let targetURL = target.url
        let origin = try await ScriptedServer { request, connection in
            if request.method == "DESCRIBE" {
                connection.respond(request, "302 Moved Temporarily", ["Location: \(targetURL)"])
            } else {
                connection.answerNormally(request)
            }
        }
        defer { Task { await origin.stop() } }
        let session = try await RTSPSession.connect(to: origin.url, options: Self.quick)
        let (packets, _) = await Self.drain(session, limit: 2)
        #expect(packets.count == 2)
        #expect(session.url.port == target.port)
        await session.teardown()
        #expect(origin.methods == ["OPTIONS", "DESCRIBE"])
    }

    @Test func autoFallsBackToTCPWhenNoUDPArrives() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)  // UDP SETUP is accepted, but nothing is ever sent over UDP
            if request.method == "PLAY", connection.index == 1 { connection.sendRTP(count: 3) }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.transport = .auto
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (packets, _) = await Self.drain(session, limit: 3)
        #expect(packets.count == 3)
        let statistics = await session.statistics()
        #expect(statistics.transport == .tcp)
        #expect(statistics.fellBackToTCP)
        await session.teardown()
        // The UDP session was torn down before TCP began, and the TCP one at the end. Read by the server when its
        // loop gets to them: teardown() returns once answered or after the teardown timeout (500 ms here), which a
        // loaded run's server passed before reading the last TEARDOWN (1 of 2 counted, once in five runs).
        var teardowns = 0
        for _ in 0..<100 {
            teardowns = server.methods.filter { $0 == "TEARDOWN" }.count
            if teardowns >= 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(teardowns == 2, "\(server.methods)")
    }

    @Test func cancellingTheConsumerSendsTEARDOWN() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" { connection.sendRTP(count: 1) }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.inactivityTimeout = .seconds(60)  // only the cancellation may end it, however slow the machine
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let consumer = Task { await Self.drain(session) }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        let (_, error) = await consumer.value
        #expect(error == nil)
        for _ in 0..<250 where server.methods.last != "TEARDOWN" { try await Task.sleep(for: .milliseconds(20)) }
        #expect(server.methods.last == "TEARDOWN")
    }

    /// Bounded in packets, and in bytes (each scripted packet is 14 bytes: 140 bytes hold 10).
    @Test(arguments: [(16, 32 << 20, 16), (4096, 140, 10)])
    func aConsumerThatFallsBehindLosesWhatArrivesUntilItCatchesUpCounted(
        capacity: Int, byteCapacity: Int, kept: Int
    ) async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" {
                for i in 0..<50 { connection.sendRTP(count: 4, firstSequence: UInt16(1 + 4 * i)) }  // 200 packets
                connection.close()
            }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.packetBufferCapacity = capacity
        options.packetBufferByteCapacity = byteCapacity
        let session = try await RTSPSession.connect(to: server.url, options: options)
        // Nobody reads while the packets arrive: wait (however slow the machine) until all 200 have.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, await session.statistics().droppedByConsumer < 200 - kept {
            try await Task.sleep(for: .milliseconds(20))
        }
        let (packets, _) = await Self.drain(session)
        let statistics = await session.statistics()
        #expect(statistics.droppedByConsumer > 0)
        #expect(packets.count + statistics.droppedByConsumer == 200)
        #expect(packets.count == kept)
        #expect(packets.map(\.packet.sequenceNumber) == Array(1...UInt16(packets.count)))  // the first are kept
    }

    @Test func aPacketHandlerGetsEveryPacketOnTheEventLoop() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" {
                connection.sendRTP(count: 30)
                connection.close()
            }
        }
        defer { Task { await server.stop() } }
        let received = NIOLockedValueBox<[UInt16]>([])
        var options = Self.untilClosed
        options.packetHandler = { batch, _ in received.withLockedValue { $0 += batch.map(\.packet.sequenceNumber) } }
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (viaSequence, error) = await Self.drain(session)
        #expect(viaSequence.isEmpty)
        #expect((error as? RTSPClientError)?.code == .connectionClosed)
        #expect(received.withLockedValue { $0 } == Array(1...30))
    }

    @Test func bytesThatAreNotRTSPAreAProtocolViolation() async throws {
        let server = try await ScriptedServer { _, connection in connection.send(Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
        }
        defer { Task { await server.stop() } }
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: Self.quick)
        }
        #expect(error?.code == .protocolViolation)
        #expect(error?.description.contains("not RTSP") == true)
    }

    /// `interleaved=0-0`: RTP and RTCP on one channel, told apart by packet type (RFC 5761). Before, every
    /// packet went to the RTCP parser and yet kept the session alive: no output, no error, forever.
    @Test func rtpAndRTCPOnOneInterleavedChannelAreToldApart() async throws {
        let server = try await ScriptedServer { request, connection in
            if request.method == "SETUP" {
                connection.respond(
                    request, "200 OK", ["Session: 1234", "Transport: RTP/AVP/TCP;unicast;interleaved=0-0"])
            } else {
                connection.answerNormally(request)
            }
            if request.method == "PLAY" {
                connection.sendRTP(count: 2)
                var report = RTCPCompoundBuilder()
                report.appendSenderReport(
                    RTCPSenderReport(
                        ssrc: 0x1234_5678, ntpTimestamp: 0xE000_0000_0000_0000, rtpTimestamp: 3000, packetCount: 2,
                        octetCount: 4))
                connection.sendInterleaved([report.bytes], channel: 0)
                connection.sendRTP(count: 1, firstSequence: 3)
            }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.quick)
        let (packets, _) = await Self.drain(session, limit: 3)
        #expect(packets.map(\.packet.sequenceNumber) == [1, 2, 3])
        let statistics = await session.statistics()
        #expect(statistics.tracks.first?.senderReports == 1)
        #expect(statistics.invalidPackets == 0)
        await session.teardown()
    }

    /// A track losing every other packet never passes RFC 3550 probation; a negotiated track needs none, so
    /// its packets and loss are counted (they were 0 and 0).
    @Test func aTrackLosingEveryOtherPacketIsCountedWithItsLoss() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            if request.method == "PLAY" {
                for i in 0..<20 { connection.sendRTP(count: 1, firstSequence: UInt16(1 + 2 * i)) }
            }
        }
        defer { Task { await server.stop() } }
        let session = try await RTSPSession.connect(to: server.url, options: Self.quick)
        let (packets, _) = await Self.drain(session, limit: 20)
        #expect(packets.count == 20)
        let track = try #require(await session.statistics().tracks.first)
        #expect(track.packets == 20)
        #expect(track.lost == 19)
        await session.teardown()
    }

    /// A server that answers every request 0.9 s late, with four tracks to set up: each answer is within the
    /// request timeout, so only the set-up's own bound ends it (6 requests: 5.4 s; it was waited out).
    static func slowServer(delay: TimeAmount = .milliseconds(900)) async throws -> ScriptedServer {
        let fourTracks =
            ScriptedServer.sdp
            + (2...4).map { "m=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=control:track\($0)\r\n" }.joined()
        return try await ScriptedServer { request, connection in
            connection.channel.eventLoop.scheduleTask(in: delay) {
                connection.answerNormally(request, sdp: fourTracks)
            }
        }
    }

    /// Answers 3 s late (6 requests: 18 s unbounded) against a 2 s bound, checked at 12 s: wide enough for a
    /// loaded two-core machine, still far from the unbounded 18 s.
    @Test func theWholeSetUpIsBoundedBySetupTimeout() async throws {
        let server = try await Self.slowServer(delay: .seconds(3))
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.setupTimeout = .seconds(2)
        let started = ContinuousClock.now
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: options)
        }
        #expect(ContinuousClock.now - started < .seconds(12))
        #expect(error?.code == .timeout)
        #expect(error?.reason.contains("did not set the session up within 2") == true)
    }

    /// `rtpdump --duration` bounds the session, set-up included. Each answer comes 3 s late here (18 s and
    /// more to play and stop, before). The time is the process's own (``ProgramRun/duration``): in a full
    /// parallel run, the wait before it starts can be seconds.
    @Test(.enabled(if: RTPDumpBinary.present)) func rtpdumpDurationBoundsTheSetUp() async throws {
        let server = try await Self.slowServer(delay: .seconds(3))
        defer { Task { await server.stop() } }
        let run = try await RTPDumpBinary.run(["streams", server.url, "--duration", "2"])
        #expect(run.duration < .seconds(12))
        #expect(run.status != 0)
        #expect(run.stderr.contains("did not set the session up within 2"))
    }

    /// Reolink RLC-410 sends RTP of an older session on the new connection. The SETUP answer announces the
    /// track's source (`ssrc=12345678`): packets of another are dropped and counted while it streams; after
    /// it has been quiet for two seconds, another source is the camera's restart and is followed.
    @Test(arguments: ["Transport", "RTP-Info"])
    func anOlderSessionsPacketsAreDroppedWhileTheAnnouncedSourceStreams(announcedIn header: String) async throws {
        @Sendable func packets(ssrc: UInt32, from first: UInt16, count: Int) -> [[UInt8]] {
            (0..<count).map { i in
                RTPPacketBuilder(
                    marker: true, payloadType: 96, sequenceNumber: first &+ UInt16(i), timestamp: UInt32(i) * 3000,
                    ssrc: ssrc, payload: [0x09, 0xF0]
                ).bytes()
            }
        }
        let server = try await ScriptedServer { request, connection in
            if request.method == "SETUP" {
                let ssrc = header == "Transport" ? ";ssrc=12345678" : ""
                let transport = (request.header("Transport") ?? "") + ssrc
                connection.respond(request, "200 OK", ["Session: 77;timeout=60", "Transport: \(transport)"])
                return
            }
            if request.method == "PLAY", header == "RTP-Info" {
                // As Reolink writes it: the track's relative URL, its SSRC in hex.
                connection.respond(
                    request, "200 OK", ["Session: 77", "RTP-Info: url=track1;seq=1;rtptime=0;ssrc=12345678"])
            } else {
                connection.answerNormally(request)
            }
            guard request.method == "PLAY" else { return }
            connection.sendInterleaved(packets(ssrc: 0xDEAD_BEEF, from: 900, count: 5))  // stale, before the real
            connection.sendInterleaved(packets(ssrc: 0x1234_5678, from: 1, count: 3))
            connection.sendInterleaved(packets(ssrc: 0xDEAD_BEEF, from: 905, count: 5))  // stale, interleaved
            connection.sendInterleaved(packets(ssrc: 0x1234_5678, from: 4, count: 3))
            // The announced source goes quiet; 2.5 s later a new one streams: a restart, followed.
            connection.channel.eventLoop.scheduleTask(in: .milliseconds(2500)) {
                connection.sendInterleaved(packets(ssrc: 0x0BAD_F00D, from: 40, count: 3))
            }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.inactivityTimeout = .seconds(10)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (received, _) = await Self.drain(session, limit: 9)
        #expect(
            received.map(\.packet.ssrc) == [UInt32](repeating: 0x1234_5678, count: 6) + [
                0x0BAD_F00D, 0x0BAD_F00D, 0x0BAD_F00D,
            ])
        #expect(received.prefix(6).map(\.packet.sequenceNumber) == [1, 2, 3, 4, 5, 6])
        #expect(await session.statistics().tracks.first?.staleSourcePackets == 10)
        await session.teardown()
    }

    /// The announced SSRC written in decimal (305419896 is 0x12345678) is the same source; one the camera
    /// never uses (ABCDEF01) holds the real packets back for half a second, then hands them all on.
    @Test(arguments: [("305419896", 5), ("ABCDEF01", 0)])
    func anAnnouncedSourceInDecimalOrNeverUsedLosesNothing(announced: String, stale: Int) async throws {
        let server = try await ScriptedServer { request, connection in
            if request.method == "SETUP" {
                let transport = (request.header("Transport") ?? "") + ";ssrc=\(announced)"
                connection.respond(request, "200 OK", ["Session: 78;timeout=60", "Transport: \(transport)"])
                return
            }
            connection.answerNormally(request)
            guard request.method == "PLAY" else { return }
            connection.sendRTP(count: 3)  // SSRC 0x12345678
            if stale > 0 {
                connection.sendInterleaved(
                    (0..<stale).map {
                        RTPPacketBuilder(payloadType: 96, sequenceNumber: UInt16(500 + $0), ssrc: 7, payload: [9])
                            .bytes()
                    })
            }
            connection.channel.eventLoop.scheduleTask(in: .milliseconds(800)) {
                connection.sendRTP(count: 3, firstSequence: 4)
            }
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.inactivityTimeout = .seconds(10)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (received, error) = await Self.drain(session, limit: 6)
        // The session's end, said if it ended early (a loaded run once received nothing).
        #expect(received.map(\.packet.sequenceNumber) == [1, 2, 3, 4, 5, 6], "ended by: \(String(describing: error))")
        #expect(received.allSatisfy { $0.packet.ssrc == 0x1234_5678 })
        #expect(await session.statistics().tracks.first?.staleSourcePackets == stale)
        await session.teardown()
    }

    /// Sender reports of another source (an older session's) do not set the track's clock: its units would
    /// be dated by another sender's NTP time. The track's own report does.
    @Test func senderReportsOfAnotherSourceDoNotDateTheTrack() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            guard request.method == "PLAY" else { return }
            // Pictures (an IDR slice each), SSRC 0x12345678, at timestamps 0, 3000 and 6000.
            let pictures = (0..<3).map { index in
                RTPPacketBuilder(
                    marker: true, payloadType: 96, sequenceNumber: UInt16(index + 1), timestamp: UInt32(index) * 3000,
                    ssrc: 0x1234_5678, payload: [0x65, 0x88, 0x84, 0x00]
                ).bytes()
            }
            connection.sendInterleaved([pictures[0]])
            for (ssrc, ntpSeconds) in [(UInt32(0xDEAD_BEEF), UInt64(0xE000_0000)), (0x1234_5678, 0xE100_0000)] {
                var report = RTCPCompoundBuilder()
                report.appendSenderReport(
                    RTCPSenderReport(
                        ssrc: ssrc, ntpTimestamp: ntpSeconds << 32, rtpTimestamp: 0, packetCount: 1, octetCount: 2))
                connection.sendInterleaved([report.bytes], channel: 1)
            }
            connection.sendInterleaved(Array(pictures[1...]))
        }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.inactivityTimeout = .seconds(10)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        // The units are dated by the pipeline, from the reports handed on beside the packets.
        var last: AccessUnit?
        for try await unit in try session.accessUnits() {
            last = unit
            if unit.rtpTimestamp == 3000 { break }
        }
        let track = try #require(await session.statistics().tracks.first)
        #expect(track.senderReports == 1)
        #expect(track.otherSourceReports == 1)
        #expect(last?.captureTime == WallClockTime(ntp: 0xE100_0000 << 32).adding(seconds: 3000.0 / 90_000))
        await session.teardown()
    }

    @Test func accessUnitsOfATrackNotSetUpIsAnError() async throws {
        let server = try await ScriptedServer { request, connection in connection.answerNormally(request) }
        defer { Task { await server.stop() } }
        var options = Self.quick
        options.inactivityTimeout = .seconds(30)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        for track in [1, -1] {
            let error = #expect(throws: RTSPClientError.self) { try session.accessUnits(track: track) }
            #expect(error?.code == .invalidCall)
            #expect(error?.reason == "track \(track) was not set up: the session has tracks 0 to 0")
        }
        let none = #expect(throws: RTSPClientError.self) { try session.accessUnits(tracks: []) }
        #expect(none?.reason == "accessUnits(tracks: []) names no track: the session has tracks 0 to 0")
        let some = #expect(throws: RTSPClientError.self) { try session.accessUnits(tracks: [0, 3, 2]) }
        #expect(some?.reason == "tracks [3, 2] were not set up: the session has tracks 0 to 0")
        #expect(try session.accessUnits().tracks == [0])
        // The packets are taken by that sequence: another is refused (they are read once).
        let second = #expect(throws: RTSPClientError.self) { try session.accessUnits(track: 0) }
        #expect(second?.code == .invalidCall)
        await session.teardown()
    }

    /// A reason phrase that would retitle the terminal and turn it red reaches the error escaped.
    @Test func aServersReasonPhraseReachesTheErrorWithItsControlCharactersEscaped() async throws {
        let server = try await ScriptedServer { request, connection in
            if request.method == "DESCRIBE" {
                connection.send(
                    Array("RTSP/1.0 404 \u{1B}]0;owned\u{07}\u{1B}[31mGone\r\nCSeq: \(request.cseq ?? 0)\r\n\r\n".utf8))
            } else {
                connection.answerNormally(request)
            }
        }
        defer { Task { await server.stop() } }
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: Self.quick)
        }
        #expect(error?.code == .notFound && error?.status == 404)
        #expect(error?.reason.contains("404 \\x1B]0;owned\\x07\\x1B[31mGone") == true)
        #expect(error?.reason.contains("check the URL's path") == true)
        #expect(error?.reason.unicodeScalars.contains { $0.value < 0x20 } == false)
    }

    @Test func aRefusedConnectionSaysWhere() async throws {
        let server = try await ScriptedServer { _, _ in }
        let (url, port) = (server.url, server.port)
        await server.stop()
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: url, options: Self.quick)
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.description.contains("127.0.0.1") == true)
        // The system's words for the reason, not NIO's description of its error value.
        #expect(error?.reason.hasPrefix("could not connect to 127.0.0.1:\(port): Connection refused;") == true)
        #expect(error?.reason.contains("errno") == false)
    }

    /// The SDP parser's reason reaches the error: which limit or line it was.
    @Test func aDescriptionThatIsNotSDPSaysWhy() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request, sdp: "v=0\r\nthis is not sdp\r\n")
        }
        defer { Task { await server.stop() } }
        let error = await #expect(throws: RTSPClientError.self) {
            try await RTSPSession.connect(to: server.url, options: Self.quick)
        }
        #expect(error?.code == .protocolViolation)
        #expect(error?.reason.contains("line 2 is not <letter>=<value>: this is not sdp") == true)
    }
}

extension RTSPMessage {
    var method: String? {
        if case .request(let method, _) = kind { return method }
        return nil
    }
}

/// A server behind a proxy that renames the source every 30 packets, its sequence numbers and timestamps going
/// on (the SETUP answer announces the first SSRC): every picture of the stream arrives whole, as the capture road
/// gives it. The session road once took each new SSRC for an older session's and dropped it for 2 s (20 frames of
/// 180 in 6 s).
@Suite struct RelabelledSourceTests {
    @Test func aSourceRenamedEveryThirtyPacketsLosesNothing() async throws {
        var capture = try CaptureFile(contentsOf: ServeCommandTests.capture("h264-gst.pcap"))
        var renamed: [[UInt8]] = []
        while let datagram = try capture.nextDatagram() {
            guard !RTPPacket.looksLikeRTCP(datagram.payload) else { continue }
            var packet = Array(datagram.payload)
            let ssrc = 0x1000_0000 + UInt32(renamed.count / 30)
            for i in 0..<4 { packet[8 + i] = UInt8(truncatingIfNeeded: ssrc >> (24 - 8 * UInt32(i))) }
            renamed.append(packet)
        }
        let packets = renamed
        let server = try await ScriptedServer { request, connection in
            if request.method == "SETUP" {
                let transport = (request.header("Transport") ?? "") + ";ssrc=10000000"
                connection.respond(request, "200 OK", ["Session: 79;timeout=60", "Transport: \(transport)"])
                return
            }
            connection.answerNormally(request)
            guard request.method == "PLAY" else { return }
            connection.sendInterleaved(packets)
            connection.channel.eventLoop.scheduleTask(in: .milliseconds(300)) {
                var bye = RTCPCompoundBuilder()
                bye.appendReceiverReport(
                    RTCPReceiverReport(ssrc: 0x1000_0000 + UInt32(packets.count / 30 - 1), reportBlocks: []))
                bye.appendGoodbye(ssrcs: [0x1000_0000 + UInt32((packets.count - 1) / 30)], reason: "end")
                connection.sendInterleaved([bye.bytes], channel: 1)
            }
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.inactivityTimeout = .seconds(10)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        var units: [AccessUnit] = []
        for try await unit in try session.accessUnits() { units.append(unit) }
        #expect(units.count == 90)  // 1079 packets, 35 names
        #expect(units.allSatisfy { $0.isComplete })
        let track = try #require(await session.statistics().tracks.first)
        #expect(track.staleSourcePackets == 0)
        #expect(track.sourceRelabels == packets.count / 30)
    }
}

/// A backchannel server that floods the client with RTP on the backchannel (which only the client sends on): a
/// talking client reads none of it, and none of it is held (rtpdump talk held 281 MB of such 64 KiB frames).
/// (A flood: it takes its turn with the other tests that load the machine.)
@Suite(.loadExclusive) struct BackchannelFloodTests {
    static let sdp = """
        v=0\r
        o=- 1 1 IN IP4 127.0.0.1\r
        s=door\r
        t=0 0\r
        m=audio 0 RTP/AVP 0\r
        a=rtpmap:0 PCMU/8000\r
        a=control:track1\r
        a=sendonly\r

        """

    @Test func rtpOnTheBackchannelIsDroppedUnread() async throws {
        let frame = RTPPacketBuilder(
            payloadType: 0, sequenceNumber: 1, ssrc: 9, payload: [UInt8](repeating: 0xFF, count: 60_000)
        ).bytes()
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request, sdp: Self.sdp)
            guard request.method == "PLAY" else { return }
            for _ in 0..<5 { connection.sendInterleaved([[UInt8]](repeating: frame, count: 100)) }
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.backchannel = true
        options.mediaKinds = []
        options.inactivityTimeout = .seconds(10)
        let session = try await RTSPSession.connect(to: server.url, options: options)
        #expect(session.backchannel != nil)
        var statistics = await session.statistics()
        for _ in 0..<200 where statistics.backchannelPacketsDropped < 500 {
            try await Task.sleep(for: .milliseconds(20))
            statistics = await session.statistics()
        }
        #expect(statistics.backchannelPacketsDropped == 500)
        #expect(statistics.tracks.first?.packets == 0)
        #expect(statistics.droppedByConsumer == 0)
        await session.teardown()
    }
}

/// A session that only talks (its one track the backchannel, as `rtpdump talk` plays) receives nothing: it
/// outlives its inactivity timeout (800 ms here) while the camera sends nothing, and still talks after it. It
/// ended at the timeout ("no RTP or RTCP from the server"), cutting a talk to a silent doorbell at 10 s.
@Suite struct TalkOnlyTests {
    @Test func aSessionThatOnlyTalksOutlivesItsInactivityTimeout() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request, sdp: BackchannelFloodTests.sdp)
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.backchannel = true
        options.mediaKinds = []
        let session = try await RTSPSession.connect(to: server.url, options: options)
        try await Task.sleep(for: .seconds(2))
        try #require(session.backchannel).send(pcm: [Int16](repeating: 1000, count: 160))
        for _ in 0..<500 where server.interleavedFrames.filter({ $0.channel == 0 }).isEmpty {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(server.interleavedFrames.filter { $0.channel == 0 }.count == 1)
        #expect(!server.methods.contains("TEARDOWN"))
        await session.teardown()
    }
}

/// A backchannel the camera keys (`RTP/SAVP` with `a=crypto`, SDES): what the client sends is SRTP, on the same
/// sending road as the server's (an outgoing track, the interleaved writer); the camera's side, with libsrtp2 and
/// the key, reads back every G.711 byte sent, and the sender reports as SRTCP.
@Suite struct BackchannelSRTPTests {
    @Test func aKeyedBackchannelSendsSRTP() async throws {
        let key = SRTPKey.random()
        let sdp = """
            v=0\r
            o=- 1 1 IN IP4 127.0.0.1\r
            s=door\r
            t=0 0\r
            m=audio 0 RTP/SAVP 0\r
            a=rtpmap:0 PCMU/8000\r
            a=crypto:\(key.cryptoAttribute)\r
            a=control:track1\r
            a=sendonly\r

            """
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request, sdp: sdp)
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.backchannel = true
        options.mediaKinds = []
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let backchannel = try #require(session.backchannel)
        let tone = (0..<1600).map { Int16(truncatingIfNeeded: Int(8000 * sin(Double($0) * 0.3))) }
        for chunk in stride(from: 0, to: tone.count, by: 160) { try backchannel.send(pcm: tone[chunk..<(chunk + 160)]) }
        var frames: [(channel: UInt8, payload: [UInt8])] = []
        for _ in 0..<500 {
            frames = server.interleavedFrames.filter { $0.channel == 0 }
            if frames.count >= 10 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let receiver = try SRTPReceiver(key: key)
        let packets = try frames.filter { $0.channel == 0 }.map {
            try RTPPacket(try receiver.unprotect($0.payload)[...])
        }
        #expect(packets.count == 10)
        #expect(packets.flatMap { Array($0.payload) } == G711.encode(tone, codec: .pcmu))
        await session.teardown()
    }
}
