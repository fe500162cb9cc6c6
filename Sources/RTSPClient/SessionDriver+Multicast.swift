import NIOCore
import NIOPosix
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP

/// Multicast (RFC 2326 section 12.39, `multicast;destination=;port=`): once SETUP has named each track's
/// group and ports, and before PLAY goes out, the client binds and joins them (joined later, the first
/// keyframe would be gone); RTCP receiver reports go to the group's RTCP port.
extension SessionDriver {
    /// Joins the groups of `tracks`, then calls `then` (on the event loop) unless the session failed.
    func joinMulticast(_ tracks: [RTSPTrack], then: @escaping @Sendable () -> Void) {
        // The group is joined on the interface that reaches the server, not on the default route's.
        let local = controlLocalAddress?.ipAddress
        let device = local.flatMap { local in
            (try? System.enumerateDevices())?.first { $0.address?.ipAddress == local }
        }
        var pairs: [EventLoopFuture<UDPPortPair>] = []
        for (index, track) in tracks.enumerated() {
            guard let header = track.transport, let group = header.destination,
                let ports = header.multicastPorts ?? header.clientPorts
            else {
                return finish(
                    RTSPClientError(
                        .protocolViolation, "the SETUP answer for multicast names no group (destination=) and ports"))
            }
            guard let rtp = try? SocketAddress(ipAddress: group, port: Int(ports.rtp)),
                let rtcp = try? SocketAddress(ipAddress: group, port: Int(ports.rtcp))
            else {
                return finish(RTSPClientError(.protocolViolation, "the multicast group is not an IP address: \(group)"))
            }
            multicastRTCP[index] = rtcp
            pairs.append(
                join(rtp, on: device, track: index, isRTCP: false).and(
                    join(rtcp, on: device, track: index, isRTCP: true)
                ).and(sender(from: local)).map {
                    UDPPortPair(rtp: $0.0.0, rtcp: $0.0.1, rtpPort: ports.rtp, rtcpSender: $0.1)
                })
        }
        EventLoopFuture.whenAllComplete(pairs, on: eventLoop).whenSuccess { [self] results in
            let joined = results.compactMap { try? $0.get() }
            guard phase != .closed, joined.count == results.count else {
                for pair in joined { pair.close() }
                let failure = results.compactMap { result -> (any Error)? in
                    if case .failure(let error) = result { return error }
                    return nil
                }.first
                if let failure {
                    finish(
                        RTSPClientError(
                            .connectionFailed, "could not join the multicast group: \(failure); try the TCP transport"))
                }
                return
            }
            udpPairs = joined
            then()
        }
    }

    /// A socket for the receiver reports: a group-bound socket cannot send, and bound to the address that
    /// reaches the server, this one sends through that interface (Linux picks the interface of the source
    /// address for multicast).
    private func sender(from local: String?) -> EventLoopFuture<UDPPortPair.Channel> {
        DatagramBootstrap(group: eventLoop).bind(host: local ?? "0.0.0.0", port: 0)
    }

    /// A socket bound to `group`'s address and port (so that it receives that group only), joined to it.
    private func join(
        _ group: SocketAddress, on device: NIONetworkDevice?, track: Int, isRTCP: Bool
    ) -> EventLoopFuture<UDPPortPair.Channel> {
        DatagramBootstrap(group: eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .receiveBuffer(options.udpReceiveBufferBytes)
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        MediaDatagramHandler(driver: self, track: track, isRTCP: isRTCP))
                }
            }
            .bind(to: group)
            .flatMap { [options] channel in
                ReceiveBuffer.size(channel, to: options.udpReceiveBufferBytes).map { channel }
            }
            .flatMap { channel in
                guard let multicast = channel as? any MulticastChannel else {
                    channel.close(promise: nil)
                    return channel.eventLoop.makeFailedFuture(
                        RTSPClientError(.unsupported, "this platform's UDP sockets cannot join multicast groups"))
                }
                return multicast.joinGroup(group, device: device).map { channel }
            }
    }
}
