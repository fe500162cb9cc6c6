import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RTP
@_spi(SansIO) import RTSP

/// An RTSP-over-HTTP server on loopback whose answers a test writes: the tunnel's GET is answered by
/// `answerGet` (a status line and headers, or nil for 200), then the RTSP requests that arrive base64 on
/// the POST go to `script` with the GET's connection to answer on (`ScriptedServer.Connection`). For what
/// gst-rtsp-server will not do: guard the tunnel with HTTP authentication, refuse it, answer it with RTSP.
final class ScriptedTunnelServer: Sendable {
    typealias AnswerGet = @Sendable (_ headers: [String: String]) -> String?

    private let channel: any Channel
    private let state: NIOLockedValueBox<State>
    var port: Int { channel.localAddress?.port ?? 0 }
    var url: String { "rtsp://127.0.0.1:\(port)/stream" }

    struct State {
        /// Each HTTP request's method and headers (names lowercased), in order.
        var http: [(method: String, headers: [String: String])] = []
        /// The RTSP requests that came through the POSTs.
        var rtsp: [String] = []
        var gets: [String: ScriptedServer.Connection] = [:]
    }

    var httpRequests: [(method: String, headers: [String: String])] { state.withLockedValue { $0.http } }
    var methods: [String] { state.withLockedValue { $0.rtsp } }

    /// `answerPost`, when it gives a status line and headers, answers the POST with them and reads nothing
    /// of it (a server that refuses the client's side, keeping the connection open).
    init(
        answerGet: @escaping AnswerGet, answerPost: AnswerGet? = nil, _ script: @escaping ScriptedServer.Script
    ) async throws {
        let state = NIOLockedValueBox(State())
        self.state = state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        TunnelHandler(state: state, answerGet: answerGet, answerPost: answerPost, script: script))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func stop() async { try? await channel.close() }
}

private final class TunnelHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let state: NIOLockedValueBox<ScriptedTunnelServer.State>
    let answerGet: ScriptedTunnelServer.AnswerGet
    let answerPost: ScriptedTunnelServer.AnswerGet?
    var refusedPost = false
    let script: ScriptedServer.Script
    var head: [UInt8] = []
    var isPost = false
    var cookie = ""
    /// The POST's base64 not yet decoded (fewer than four characters), and the RTSP it decoded to.
    var pending: [UInt8] = []
    var framer = RTSPFramer()

    init(
        state: NIOLockedValueBox<ScriptedTunnelServer.State>, answerGet: @escaping ScriptedTunnelServer.AnswerGet,
        answerPost: ScriptedTunnelServer.AnswerGet?, script: @escaping ScriptedServer.Script
    ) {
        self.state = state
        self.answerGet = answerGet
        self.answerPost = answerPost
        self.script = script
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = Array(unwrapInboundIn(data).readableBytesView)
        if isPost { return refusedPost ? () : body(bytes) }
        head += bytes
        guard let end = head.indices.first(where: { head[$0...].starts(with: [13, 10, 13, 10]) }) else { return }
        let lines = String(decoding: head[..<end], as: UTF8.self).split(separator: "\r\n")
        let method = String(lines.first?.split(separator: " ").first ?? "")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        cookie = headers["x-sessioncookie"] ?? ""
        let rest = Array(head[(end + 4)...])
        state.withLockedValue { $0.http.append((method, headers)) }
        if method == "GET" {
            if let refusal = answerGet(headers) {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: refusal + "\r\n\r\n")), promise: nil)
                context.close(promise: nil)
                return
            }
            let connection = ScriptedServer.Connection(channel: context.channel, index: 0)
            state.withLockedValue { $0.gets[cookie] = connection }
            context.writeAndFlush(
                wrapOutboundOut(
                    ByteBuffer(string: "HTTP/1.0 200 OK\r\nContent-Type: application/x-rtsp-tunnelled\r\n\r\n")),
                promise: nil)
        } else if let refusal = answerPost?(headers) {
            refusedPost = true
            isPost = true
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: refusal + "\r\n\r\n")), promise: nil)
        } else {
            isPost = true
            body(rest)
        }
    }

    /// Base64 of the client's side: decoded four characters at a time (each message is padded on its own).
    private func body(_ bytes: [UInt8]) {
        pending += bytes.filter { !($0 == 13 || $0 == 10) }
        let whole = pending.count / 4 * 4
        guard whole > 0 else { return }
        var decoded: [UInt8] = []
        for start in stride(from: 0, to: whole, by: 4) {
            decoded += Base64.decode(Substring(String(decoding: pending[start..<start + 4], as: UTF8.self))) ?? []
        }
        pending.removeFirst(whole)
        framer.append(decoded)
        guard let connection = state.withLockedValue({ $0.gets[cookie] }) else { return }
        while let frame = try? framer.next() {
            guard case .message(let message) = frame, case .request = message.kind else { continue }
            state.withLockedValue { $0.rtsp.append(message.method ?? "") }
            script(message, connection)
        }
    }
}
