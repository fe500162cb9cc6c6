import NIOCore
import NIOPosix
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP

/// The UDP sockets of one track: RTP on an even port, RTCP on the next (RFC 3550 section 11).
struct UDPPortPair {
    typealias Channel = any NIOCore.Channel
    let rtp: Channel
    let rtcp: Channel
    let rtpPort: UInt16
    /// Where RTCP is sent from when `rtcp` cannot send (it is bound to a multicast group).
    var rtcpSender: Channel? = nil

    func close() {
        rtp.close(promise: nil)
        rtcp.close(promise: nil)
        rtcpSender?.close(promise: nil)
    }
}

enum UDPPortPairs {
    /// How many tracks a session can receive over UDP: ports are bound before DESCRIBE says how many
    /// tracks there are, and cameras offer a video track or two and an audio track or two.
    static let maxTracks = 6
    static let attempts = 32

    /// Binds `count` consecutive pairs: `first`, or a random even port when nil, tried again at another
    /// random port when one of them is taken.
    static func bind(
        count: Int, first: UInt16?, host: String, receiveBufferBytes: Int, on eventLoop: any EventLoop,
        driver: SessionDriver
    ) async throws -> [UDPPortPair] {
        var lastError: (any Error)?
        for attempt in 0..<attempts {
            let base: Int
            if let first, attempt == 0 {
                base = Int(first)
            } else if first != nil {
                break
            } else {
                base = Int.random(in: 20_000..<(60_000 - 2 * count)) & ~1
            }
            var bound: [any Channel] = []
            do {
                for offset in 0..<(2 * count) {
                    let track = offset / 2
                    let isRTCP = offset % 2 == 1
                    let channel = try await DatagramBootstrap(group: eventLoop)
                        .receiveBuffer(receiveBufferBytes)
                        .channelInitializer { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    MediaDatagramHandler(driver: driver, track: track, isRTCP: isRTCP))
                            }
                        }
                        .bind(host: host, port: base + offset).get()
                    bound.append(channel)
                    try await ReceiveBuffer.size(channel, to: receiveBufferBytes).get()
                }
                return (0..<count).map {
                    UDPPortPair(rtp: bound[2 * $0], rtcp: bound[2 * $0 + 1], rtpPort: UInt16(base + 2 * $0))
                }
            } catch {
                lastError = error
                for channel in bound { try? await channel.close() }
            }
        }
        throw RTSPClientError(
            .connectionFailed,
            "could not bind \(2 * count) consecutive UDP ports for RTP and RTCP"
                + (first.map { " from \($0)" } ?? "") + ": \(lastError.map { "\($0)" } ?? "no attempt")"
                + "; try the TCP transport")
    }
}

extension DatagramBootstrap {
    /// Asks for a kernel receive buffer of `bytes` (`SO_RCVBUF`; 0 or less: the system's default).
    func receiveBuffer(_ bytes: Int) -> DatagramBootstrap {
        guard bytes > 0 else { return self }
        return channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(clamping: bytes))
    }
}
