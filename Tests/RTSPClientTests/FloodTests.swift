import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RTP
@_spi(SansIO) import RTSP
import RTSPClient
import Testing

/// Peers that try to make the client hold more and more: a server that floods requests and never reads the
/// answers, and one that streams faster than the application takes packets. What waits is bounded; the
/// first ends the session with a reason, the second drops and counts.
@Suite struct FloodTests {
    /// Requests from the server, 200 a millisecond, while its connection can take them (bounded in time).
    static func flood(_ connection: ScriptedServer.Connection, for seconds: Double) {
        let request = Array("GET_PARAMETER rtsp://127.0.0.1/stream RTSP/1.0\r\nCSeq: 1\r\n\r\n".utf8)
        // 200 a millisecond: a flood, yet not one that starves the other tests' event loops (the suite runs
        // in parallel, in one process).
        let burst = ByteBuffer(bytes: Array([[UInt8]](repeating: request, count: 200).joined()))
        let end = NIODeadline.now() + .milliseconds(Int64(seconds * 1000))
        connection.channel.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(1)) { task in
            guard connection.channel.isActive, NIODeadline.now() < end else { return task.cancel() }
            if connection.channel.isWritable { connection.channel.writeAndFlush(burst, promise: nil) }
        }
    }

    /// The server stops reading after PLAY and sends GET_PARAMETER after GET_PARAMETER: each answer the
    /// client owes would wait in memory without end (1.3 GB in 30 s before the bound). Past 1 MiB waiting
    /// the session ends, saying why.
    @Test func aServerThatFloodsRequestsAndNeverReadsEndsTheSession() async throws {
        let server = try await ScriptedServer { request, connection in
            connection.answerNormally(request)
            guard request.method == "PLAY" else { return }
            connection.channel.setOption(ChannelOptions.autoRead, value: false).whenSuccess {
                Self.flood(connection, for: 60)
            }
        }
        defer { Task { await server.stop() } }
        var options = ScriptedServerTests.quick
        options.inactivityTimeout = .seconds(60)  // the flood is liveness enough; what ends it must be the bound
        let started = ContinuousClock.now
        let session = try await RTSPSession.connect(to: server.url, options: options)
        let (_, ended) = await ScriptedServerTests.drain(session)
        let error = try #require(ended as? RTSPClientError)
        #expect(error.code == .protocolViolation)
        #expect(error.reason.contains("does not read"), "\(error)")
        #expect(ContinuousClock.now - started < .seconds(50))
    }
}
