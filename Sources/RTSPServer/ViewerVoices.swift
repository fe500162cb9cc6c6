import NIOCore
import RTP
import Synchronization

/// A viewer that talks (its session's backchannel track, set up and playing): where its voice goes, and the name
/// its talkback knows it by (one talker holds the floor at a time).
struct Talker: Sendable {
    let talkback: Talkback
    let viewer: String

    /// An RTP packet of its voice; what does not read as RTP is dropped.
    func take(_ bytes: ArraySlice<UInt8>, now: ArrivalTime) {
        guard let packet = try? RTPPacket(bytes) else { return }
        talkback.take(packet, from: viewer, now: now)
    }

    /// It stopped talking (PAUSE, TEARDOWN, its connection closed): the floor is free if it held it.
    func leave() { talkback.left(viewer) }
}

/// The viewers that talk over UDP, by the address their voice comes from (the connection's peer, the client RTP port
/// its SETUP gave): what the server's RTP socket hands each packet by.
final class UDPTalkers: Sendable {
    private let talkers = Mutex<[SocketAddress: Talker]>([:])

    func add(_ talker: Talker, from address: SocketAddress) { talkers.withLock { $0[address] = talker } }

    func remove(from address: SocketAddress) { _ = talkers.withLock { $0.removeValue(forKey: address) } }

    func talker(at address: SocketAddress) -> Talker? { talkers.withLock { $0[address] } }
}

/// Reads the server's RTP socket: a talking viewer's voice goes to its talkback; anything else (receiver reports
/// sent to the RTP port, strays, a viewer that does not talk) is dropped.
final class UDPTalkHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let talkers: UDPTalkers

    init(talkers: UDPTalkers) {
        self.talkers = talkers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let talker = talkers.talker(at: envelope.remoteAddress) else { return }
        talker.take(ArraySlice(envelope.data.readableBytesView), now: .now())
    }
}
