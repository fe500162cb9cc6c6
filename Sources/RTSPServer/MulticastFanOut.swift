import NIOCore
import NIOPosix
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a server sends to multicast groups: one subscriber per source and group, whose packets go once to the
/// group for every viewer that joined it, from one UDP socket (the server's multicast interface and TTL). The first
/// viewer to play starts it; the last to leave stops it.
final class MulticastFanOut: Sendable {
    /// The socket every group's packets leave from.
    let socket: any Channel

    private struct Key: Hashable {
        let source: ObjectIdentifier
        let group: MulticastGroup
    }

    private struct Sending {
        let source: MediaSource
        let subscriber: Subscriber
        var viewers: Set<String>
    }

    private let sending = Mutex<[Key: Sending]>([:])

    init(socket: any Channel) {
        self.socket = socket
    }

    /// Joins viewer `viewer` (its session) to `group`, which sends `source`: the first viewer subscribes the group
    /// to the source. `starting` runs first with where each track's stream is (the PLAY answer's RTP-Info), before
    /// any packet the viewer could take for its first. False when the source has ended.
    func join(
        viewer: String, group: MulticastGroup, source: MediaSource, report: ViewerReport,
        starting: ([Int: (sequenceNumber: UInt16, rtpTime: UInt32)]) -> Void
    ) -> Bool {
        let key = Key(source: ObjectIdentifier(source), group: group)
        return sending.withLock { sending in
            if var existing = sending[key] {
                guard let positions = source.positions() else { return false }
                starting(positions)
                existing.viewers.insert(viewer)
                sending[key] = existing
                return true
            }
            let formats = source.formats
            let subscriber = Subscriber(
                writers: writers(to: group, tracks: formats.count),
                videoTracks: Set(formats.indices.filter { formats[$0].kind == .video }), report: report.forGroup(group))
            guard source.subscribe(subscriber, starting: starting) else { return false }
            sending[key] = Sending(source: source, subscriber: subscriber, viewers: [viewer])
            return true
        }
    }

    /// Viewer `viewer` leaves `group`: the last one to leave stops its packets.
    func leave(viewer: String, group: MulticastGroup, source: MediaSource) {
        let key = Key(source: ObjectIdentifier(source), group: group)
        sending.withLock { sending in
            guard var existing = sending[key], existing.viewers.remove(viewer) != nil else { return }
            if existing.viewers.isEmpty {
                sending[key] = nil
                existing.source.unsubscribe(existing.subscriber)
            } else {
                sending[key] = existing
            }
        }
    }

    /// A writer per track to the group's ports (track n on port + 2n, its RTCP on the next).
    private func writers(to group: MulticastGroup, tracks: Int) -> [Int: TrackWriter] {
        var writers: [Int: TrackWriter] = [:]
        for index in 0..<tracks {
            guard let ports = group.ports(track: index),
                let rtp = try? SocketAddress(ipAddress: group.address, port: Int(ports.rtp)),
                let rtcp = try? SocketAddress(ipAddress: group.address, port: Int(ports.rtcp))
            else { continue }
            writers[index] = .datagrams(
                DatagramWriter(rtpSocket: socket, rtcpSocket: socket, rtpAddress: rtp, rtcpAddress: rtcp))
        }
        return writers
    }

    /// `text` as an IPv4 address; nil when it is not one.
    static func ipv4(_ text: String) -> in_addr? {
        guard case .v4(let address) = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        return address.address.sin_addr
    }

    /// The socket groups are sent from: bound to `interface` (an IPv4 address of this host; nil: any), sending out
    /// of that interface, with `ttl`, its packets looped back to this host's own members.
    static func bind(
        interface: String?, ttl: UInt8, writeBufferLimit: Int, group: any EventLoopGroup
    ) async throws -> any Channel {
        let channel = try await DatagramBootstrap(group: group)
            .channelOption(.writeBufferWaterMark, value: .init(low: writeBufferLimit / 2, high: writeBufferLimit))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DiscardingHandler())
                }
            }
            .bind(host: interface ?? "0.0.0.0", port: 0).get()
        do {
            guard let options = channel as? any SocketOptionProvider else {
                throw ChannelError.operationUnsupported
            }
            try await options.setIPMulticastTTL(CUnsignedChar(ttl)).get()
            try await options.setIPMulticastLoop(1).get()
            if let interface, let address = ipv4(interface) {
                try await options.setIPMulticastIF(address).get()
            }
        } catch {
            try? await channel.close()
            throw error
        }
        return channel
    }
}
