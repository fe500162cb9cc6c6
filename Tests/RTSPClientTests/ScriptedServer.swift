import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP
@_spi(SansIO) import RTSP

/// An RTSP server on loopback whose every answer a test writes: for the faults a real server will not
/// produce on demand (401 loops, data before the PLAY answer, silence, a dropped connection, redirects).
final class ScriptedServer: Sendable {
    /// One connection as the script sees it.
    final class Connection: @unchecked Sendable {
        let channel: any Channel
        let index: Int
        init(channel: any Channel, index: Int) {
            self.channel = channel
            self.index = index
        }

        func send(_ bytes: [UInt8]) { channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil) }

        /// A response: status line, CSeq, the headers, and the body with its Content-Length.
        func respond(_ request: RTSPMessage, _ status: String = "200 OK", _ headers: [String] = [], body: String = "") {
            var text = "RTSP/1.0 \(status)\r\nCSeq: \(request.cseq ?? 0)\r\n"
            for header in headers { text += header + "\r\n" }
            if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
            text += "\r\n" + body
            send(Array(text.utf8))
        }

        /// RTP packets as interleaved frames on `channel`.
        func sendRTP(count: Int, channel number: UInt8 = 0, firstSequence: UInt16 = 1, ssrc: UInt32 = 0x1234_5678) {
            var bytes: [UInt8] = []
            for i in 0..<count {
                let packet = RTPPacketBuilder(
                    marker: true, payloadType: 96, sequenceNumber: firstSequence &+ UInt16(i),
                    timestamp: UInt32(i) * 3000, ssrc: ssrc, payload: [0x09, 0xF0]
                ).bytes()
                bytes += [0x24, number, UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet
            }
            send(bytes)
        }

        /// One RTP packet every `interval`, numbered from 1, until the connection closes: a live stream.
        func streamRTP(every interval: TimeAmount, ssrc: UInt32 = 0x1234_5678) {
            let sequence = NIOLockedValueBox<UInt16>(1)
            channel.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: interval) { [self] task in
                guard channel.isActive else { return task.cancel() }
                sendRTP(count: 1, firstSequence: sequence.withLockedValue { $0 }, ssrc: ssrc)
                sequence.withLockedValue { $0 &+= 1 }
            }
        }

        /// Packets as they are (RTP, SRTP...), as interleaved frames on `channel`.
        func sendInterleaved(_ packets: [[UInt8]], channel number: UInt8 = 0) {
            var bytes: [UInt8] = []
            for packet in packets {
                bytes += [0x24, number, UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet
            }
            send(bytes)
        }

        func close() { channel.close(promise: nil) }
    }

    typealias Script = @Sendable (RTSPMessage, Connection) -> Void

    private let channel: any Channel
    private let state: NIOLockedValueBox<(requests: [RTSPMessage], connections: Int, interleaved: [(UInt8, [UInt8])])>
    let host: String
    var port: Int { channel.localAddress?.port ?? 0 }
    var url: String { "rtsp://\(host):\(port)/stream" }
    /// "METHOD" of every request received, in order, over all connections.
    var methods: [String] { requests.compactMap(\.method) }
    /// Every request received, in order, over all connections.
    var requests: [RTSPMessage] { state.withLockedValue { $0.requests } }
    /// Every interleaved frame clients sent (their RTCP, a backchannel's RTP), in order: channel and payload.
    var interleavedFrames: [(channel: UInt8, payload: [UInt8])] { state.withLockedValue { $0.interleaved } }

    /// A server on `host` (any address of 127.0.0.0/8 is this machine's loopback: a second host for a test),
    /// on `port` (0: any free one).
    init(host: String = "127.0.0.1", port: Int = 0, _ script: @escaping Script) async throws {
        let state = NIOLockedValueBox<(requests: [RTSPMessage], connections: Int, interleaved: [(UInt8, [UInt8])])>(
            ([], 0, []))
        self.state = state
        self.host = host
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                let index = state.withLockedValue {
                    $0.connections += 1
                    return $0.connections - 1
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ScriptHandler(
                            script: script, connection: Connection(channel: channel, index: index),
                            record: { request in state.withLockedValue { $0.requests.append(request) } },
                            recordFrame: { frame in state.withLockedValue { $0.interleaved.append(frame) } }))
                }
            }
            .bind(host: host, port: port).get()
    }

    func stop() async { try? await channel.close() }

    /// A loopback port nothing listens on now: bound and let go (a camera that is down).
    ///
    /// Chosen below Linux's ephemeral range (32768-60999), which the kernel hands to every socket bound to port 0
    /// and every outgoing connection: a port found free there was taken by another test's socket, in a loaded run,
    /// in the seconds before the test bound it ("Address already in use"). Nothing takes one of these unasked.
    static func freePort() async throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_768)
            guard
                let probe = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: "127.0.0.1", port: port).get()
            else { continue }
            try await probe.close()
            return port
        }
        throw ServerError(description: "no free port below the ephemeral range in 100 tries")
    }

    /// A session description with one H.264 track.
    static let sdp = """
        v=0\r
        o=- 1 1 IN IP4 127.0.0.1\r
        s=scripted\r
        t=0 0\r
        m=video 0 RTP/AVP 96\r
        a=rtpmap:96 H264/90000\r
        a=fmtp:96 packetization-mode=1\r
        a=control:track1\r

        """
}

private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let script: ScriptedServer.Script
    let connection: ScriptedServer.Connection
    let record: (RTSPMessage) -> Void
    let recordFrame: ((UInt8, [UInt8])) -> Void
    var framer = RTSPFramer()

    init(
        script: @escaping ScriptedServer.Script, connection: ScriptedServer.Connection,
        record: @escaping (RTSPMessage) -> Void, recordFrame: @escaping ((UInt8, [UInt8])) -> Void
    ) {
        self.script = script
        self.connection = connection
        self.record = record
        self.recordFrame = recordFrame
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        framer.append(unwrapInboundIn(data).readableBytesView)
        while let frame = try? framer.next() {
            if case .interleaved(let channel, let payload) = frame { recordFrame((channel, Array(payload))) }
            guard case .message(let message) = frame, case .request = message.kind else { continue }
            record(message)
            script(message, connection)
        }
    }
}

extension ScriptedServer.Connection {
    /// The usual answers to OPTIONS, DESCRIBE, SETUP (TCP, channels 0-1) and PLAY, so that a script
    /// changes only what its case is about. Returns false for anything else.
    @discardableResult
    func answerNormally(
        _ request: RTSPMessage, session: String = "12345678;timeout=60", sdp: String = ScriptedServer.sdp
    ) -> Bool {
        guard case .request(let method, _) = request.kind else { return false }
        switch method {
        case "OPTIONS": respond(request, "200 OK", ["Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER"])
        case "DESCRIBE":
            respond(
                request, "200 OK", ["Content-Type: application/sdp"],
                body: sdp)
        case "SETUP":
            let transport = request.header("Transport") ?? ""
            if transport.contains("TCP") {
                respond(request, "200 OK", ["Session: \(session)", "Transport: \(transport)"])
            } else {
                // The discard port: nothing ever arrives over UDP.
                respond(request, "200 OK", ["Session: \(session)", "Transport: \(transport);server_port=9-10"])
            }
        case "PLAY": respond(request, "200 OK", ["Session: \(session)"])
        case "TEARDOWN", "GET_PARAMETER": respond(request, "200 OK", ["Session: \(session)"])
        default: return false
        }
        return true
    }
}
