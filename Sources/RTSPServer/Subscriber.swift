import NIOCore
@_spi(SansIO) import RTPTransport
@_spi(SansIO) import RTSP
import Synchronization

/// One playing session of one client: the edge writer of each of its tracks (interleaved in its connection, or
/// UDP to its ports), and what it skips while it cannot keep up. Its methods are called by its ``MediaSource``
/// under the source's lock, one at a time, from whatever thread pushes; the writes they make are queued on the
/// connection's (or the UDP socket's) event loop.
package final class Subscriber: Sendable {
    let writers: [Int: TrackWriter]
    /// Tracks that wait for a keyframe before they send again (video at the start, and after a skip), and
    /// counts of what was skipped, and whether it fell behind (a unit found no room) and has sent nothing since.
    private let gate: Mutex<(waiting: Set<Int>, skippedUnits: Int, isSkipping: Bool)>

    /// Where bytes sent and units skipped are counted, and falling behind is told.
    let report: ViewerReport?

    package convenience init(writers: [Int: TrackWriter], videoTracks: Set<Int>) {
        self.init(writers: writers, videoTracks: videoTracks, report: nil)
    }

    init(writers: [Int: TrackWriter], videoTracks: Set<Int>, report: ViewerReport?) {
        self.writers = writers
        self.report = report
        gate = Mutex((videoTracks.intersection(writers.keys), 0, false))
    }

    /// The writers of a PLAY's tracks: interleaved in `connection`, or over the server's UDP sockets to the
    /// client's ports at `peer` (nil for a track that cannot be reached: no UDP here, or no peer address).
    static func writers(
        for tracks: [RTSPServerStateMachine.Track], connection: any Channel,
        udp: (rtp: any Channel, rtcp: any Channel)?, peer: SocketAddress?
    ) -> [Int: TrackWriter] {
        var writers: [Int: TrackWriter] = [:]
        for track in tracks where !track.isBackchannel {
            switch track.transport {
            case .interleaved(let rtp, let rtcp):
                writers[track.index] = .interleaved(
                    InterleavedWriter(connection: connection, rtpChannel: rtp, rtcpChannel: rtcp))
            case .udp(let rtp, let rtcp):
                guard let udp, let rtpAddress = try? peer?.withPort(Int(rtp)),
                    let rtcpAddress = try? peer?.withPort(Int(rtcp))
                else { continue }
                writers[track.index] = .datagrams(
                    DatagramWriter(
                        rtpSocket: udp.rtp, rtcpSocket: udp.rtcp, rtpAddress: rtpAddress, rtcpAddress: rtcpAddress))
            case .multicast:
                continue  // the group's own subscriber sends it (MulticastFanOut), once for all its viewers
            }
        }
        return writers
    }

    /// Whether every track's connection (or UDP socket) has room for more now: what a source paced by its
    /// viewer (`Rate-Control: no`) waits for.
    var hasRoom: Bool { writers.values.allSatisfy(\.hasRoom) }

    /// Units skipped because the client was not reading, or was waiting for a keyframe.
    package var skippedUnits: Int { gate.withLock { $0.skippedUnits } }

    /// Sends one unit's packets on the track's writer; skips them when its connection's (or the UDP socket's)
    /// queue is full, and video until a keyframe after that.
    func deliver(track: Int, packets: FramedPackets, isVideo: Bool, isKeyframe: Bool) {
        guard let writer = writers[track] else { return }
        let hasRoom = writer.hasRoom
        let (sends, fellBehind) = gate.withLock { gate -> (Bool, Bool) in
            if !hasRoom {
                if isVideo { gate.waiting.insert(track) }
                gate.skippedUnits += 1
                let fellBehind = !gate.isSkipping
                gate.isSkipping = true
                return (false, fellBehind)
            }
            if gate.waiting.contains(track) {
                guard isKeyframe else {
                    gate.skippedUnits += 1
                    return (false, false)
                }
                gate.waiting.remove(track)
            }
            gate.isSkipping = false
            return (true, false)
        }
        if sends {
            report?.sent(bytes: packets.packetBytes)
            writer.write(packets)
        } else {
            report?.skipped(fellBehind: fellBehind)
        }
    }

    /// Sends an RTCP compound on the track's RTCP channel or port.
    func deliverReport(track: Int, bytes: [UInt8]) {
        writers[track]?.writeRTCP(bytes)
    }
}

extension SocketAddress {
    /// This address with another port.
    func withPort(_ port: Int) throws -> SocketAddress {
        guard let ip = ipAddress else { throw ChannelError.unknownLocalAddress }
        return try SocketAddress(ipAddress: ip, port: port)
    }
}
