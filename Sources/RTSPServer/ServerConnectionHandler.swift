import NIOCore
import RTP
import RTSP

/// One client's RTSP connection: its bytes framed into requests (and the client's interleaved RTCP), the
/// requests through the connection's ``RTSPServerStateMachine``, its actions carried out. Runs on the
/// connection's event loop.
final class ServerConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: RTSPServer
    private let udp: (rtp: any Channel, rtcp: any Channel)?
    private var machine: RTSPServerStateMachine
    private var framer = RTSPFramer()
    /// Each playing session's subscription, with its source.
    private var playing: [String: (source: MediaSource, subscriber: Subscriber)] = [:]
    private var expiry: RepeatedTask?
    /// When the client last sent anything: a connection with no session that stays quiet for the session timeout
    /// is closed (connections are bounded; idle ones must not hold the places).
    private var lastHeard = ArrivalTime.now()

    init(server: RTSPServer, udp: (rtp: any Channel, rtcp: any Channel)?) {
        self.server = server
        self.udp = udp
        var configuration = RTSPServerStateMachine.Configuration()
        configuration.authentication = server.configuration.authentication
        configuration.sessionTimeout = server.configuration.sessionTimeout
        configuration.serverName = server.configuration.name
        if let udp, let rtp = udp.rtp.localAddress?.port, let rtcp = udp.rtcp.localAddress?.port {
            configuration.udpPorts = (UInt16(truncatingIfNeeded: rtp), UInt16(truncatingIfNeeded: rtcp))
        }
        machine = RTSPServerStateMachine(presentations: [], configuration: configuration)
    }

    func channelActive(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        expiry = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            let (handler, context) = loopBound.value
            let now = ArrivalTime.now()
            handler.carryOut(handler.machine.expire(now: now), context: context)
            if handler.machine.sessionIDs.isEmpty, now - handler.lastHeard > handler.server.configuration.sessionTimeout {
                context.close(promise: nil)
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        lastHeard = .now()
        buffer.withUnsafeReadableBytes { framer.append($0) }
        do {
            while let frame = try framer.next() {
                switch frame {
                case .message(let message):
                    machine.replacePresentations(server.presentations)
                    carryOut(machine.receive(message, now: .now()), context: context)
                case .interleaved:
                    machine.noteActivity(now: .now())
                }
            }
        } catch {
            // The stream cannot be framed any more: say so and close.
            let answer = RTSPMessage(
                kind: .response(statusCode: 400, reason: "Bad Request"), headers: [("CSeq", "0")], body: [])
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        expiry?.cancel()
        for (_, play) in playing { play.source.unsubscribe(play.subscriber) }
        playing = [:]
        _ = machine.close()
        server.connectionCount.wrappingSubtract(1, ordering: .relaxed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func carryOut(_ actions: [RTSPServerStateMachine.Action], context: ChannelHandlerContext) {
        for action in actions {
            switch action {
            case .respond(let answer):
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
            case .play(let play):
                start(play, context: context)
            case .pause(let session), .teardown(let session):
                if let play = playing.removeValue(forKey: session) { play.source.unsubscribe(play.subscriber) }
            }
        }
    }

    private func start(_ play: RTSPServerStateMachine.Play, context: ChannelHandlerContext) {
        if let old = playing.removeValue(forKey: play.session) { old.source.unsubscribe(old.subscriber) }
        guard let source = server.source(at: play.path) else {
            return respond(404, "Not Found", to: play, context: context)
        }
        let peer = context.channel.remoteAddress
        let subscriber = Subscriber(
            connection: context.channel,
            transports: Dictionary(play.tracks.map { ($0.index, $0.transport) }, uniquingKeysWith: { $1 }),
            udp: udp.flatMap { udp in peer.map { (udp.rtp, udp.rtcp, $0) } },
            videoTracks: Set(source.formats.indices.filter { source.formats[$0].kind == .video }))
        let channel = context.channel
        let subscribed = source.subscribe(subscriber) { positions in
            channel.writeAndFlush(ByteBuffer(bytes: play.response(startingAt: positions).serialized()), promise: nil)
        }
        guard subscribed else { return respond(503, "Service Unavailable", to: play, context: context) }
        playing[play.session] = (source, subscriber)
    }

    private func respond(_ status: Int, _ reason: String, to play: RTSPServerStateMachine.Play, context: ChannelHandlerContext) {
        let answer = play.refusal(statusCode: status, reason: reason)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.serialized())), promise: nil)
    }
}
