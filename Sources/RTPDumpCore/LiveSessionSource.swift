import NIOConcurrencyHelpers
import RTSPCapture
import PacketCapture
import RTP
import RTSP
import RTSPClient

/// A live RTSP session as the commands' source of received items: its packets as they arrive and its tracks'
/// sender reports, each as it came (the reports before the packets of the read that brought them), named by
/// the stream each belongs to: the server's address, and on this host the track's client port (UDP) or
/// interleaved channel (TCP). The commands are synchronous; ``nextItem()`` waits for the next item, and
/// returns nil when the session ends or `duration` has passed (then the session is torn down).
/// ``forEachItem(_:)`` runs its body on the session's event loop instead, as each read arrives, while the
/// caller waits: no thread hop per read.
package final class LiveSessionSource: ReceivedItemSource, @unchecked Sendable {
    package let session: RTSPSession
    /// What the commands read from a session capture: the SDP and the transports.
    package let info: RTSPSessionInfo
    /// What was dropped for a reader that fell behind (``PacketQueue/capacity``, ``PacketQueue/byteCapacity``).
    package var warnings: CaptureWarnings {
        var warnings = CaptureWarnings()
        warnings.droppedForSlowReader = queue.dropped
        warnings.unreadAtDeadline = queue.unreadAtCut
        return warnings
    }

    private let queue: PacketQueue

    /// Connects and plays (blocking the calling thread until PLAY is answered or the session fails). A
    /// `duration` bounds the whole session, set-up included.
    package static func open(url: String, options: RTSPSessionOptions, duration: Duration?) throws -> LiveSessionSource
    {
        // Packets go from the event loop straight to this queue (the session's packetHandler), which hands
        // them to a consumer on the event loop (forEachItem) or to the command's thread (nextItem). What
        // comes before the tracks' streams are named (between PLAY's answer and the session's return here)
        // waits, in order, until they are.
        let queue = PacketQueue()
        let naming = NIOLockedValueBox<(streams: LiveStreams?, early: [LiveStreams.Read])>((nil, []))
        var options = options
        options.packetHandler = { batch, reports in
            naming.withLockedValue { naming in
                guard let streams = naming.streams else {
                    return naming.early.append(LiveStreams.Read(packets: Array(batch), reports: reports))
                }
                streams.push(batch, reports, to: queue)
            }
        }
        if let duration { options.setupTimeout = min(options.setupTimeout, duration) }
        let started = ContinuousClock.now
        let result = BlockingResult<RTSPSession>()
        let connecting = Task { [options] in
            await result.set { try await RTSPSession.connect(to: url, options: options) }
        }
        // A first connect that is retried (--reconnect) waits for the camera past setupTimeout: the duration
        // still bounds it. (Otherwise setupTimeout, set to the duration above, does and says so.)
        let retriesFirstConnect = options.reconnection?.includesFirstConnect == true
        let deadline = duration.flatMap { duration in
            !retriesFirstConnect
                ? nil
                : Task {
                    try? await Task.sleep(for: duration)
                    connecting.cancel()
                }
        }
        defer { deadline?.cancel() }
        let session = try result.wait()
        naming.withLockedValue { naming in
            let streams = LiveStreams(session)
            for read in naming.early { streams.push(read.packets[...], read.reports, to: queue) }
            naming = (streams, [])
        }
        let rest = duration.map { max(.zero, $0 - (ContinuousClock.now - started)) }
        return LiveSessionSource(session: session, queue: queue, duration: rest)
    }

    private init(session: RTSPSession, queue: PacketQueue, duration: Duration?) {
        self.session = session
        self.queue = queue
        var info = RTSPSessionInfo()
        info.description = session.sessionDescription
        self.info = info
        // The packet sequence only ends (the packets went to the queue): that is the session's end.
        Task {
            let stopper = duration.map { duration in
                Task {
                    try? await Task.sleep(for: duration)
                    guard !Task.isCancelled else { return }
                    // The duration bounds the command, not only the session: a reader that fell behind (a
                    // decoder under a high bit rate) stops now, and what it did not read is counted.
                    queue.cut()
                    await session.teardown()
                }
            }
            do {
                for try await _ in session.packets {}
                queue.end(nil)
            } catch {
                queue.end(error)
            }
            stopper?.cancel()
        }
    }

    package func nextItem() throws -> ReceivedItem? { try queue.next() }

    package func forEachItem(_ body: (consuming ReceivedItem) throws -> Void) throws {
        // The caller waits until the session ends, so `body` never runs after this returns.
        try withoutActuallyEscaping(body) { body in
            try queue.consumeOnPushingThread({ try body($0) }, stop: { [session] in Task { await session.teardown() } })
        }
    }
}

/// How a live session's packets and reports are named as received items.
private struct LiveStreams: Sendable {
    /// The server's address as connected (a host name resolved, an IPv6 address as such).
    let server: SocketAddress
    /// Each track's port on this host: its client port (UDP, multicast), else its interleaved channel.
    let ports: [UInt16]

    init(_ session: RTSPSession) {
        server = SocketAddress(
            address: session.serverAddress.flatMap { IPAddress(parsing: $0) } ?? .v4(0),
            port: UInt16(clamping: session.url.port))
        ports = session.tracks.enumerated().map { index, track -> UInt16 in
            track.transport?.clientPorts?.rtp ?? track.transport?.multicastPorts?.rtp
                ?? UInt16(track.transport?.interleavedChannels?.rtp ?? UInt8(2 * index))
        }
    }

    /// The port of `track` on this host (`rtcp`: the one above it, where its reports come).
    private func local(_ track: Int, rtcp: Bool = false) -> SocketAddress {
        let port = ports.indices.contains(track) ? ports[track] : 0
        return SocketAddress(address: .v4(0x7F00_0001), port: rtcp ? port &+ 1 : port)
    }

    /// What one read brought before the streams were named.
    struct Read {
        let packets: [RTSPReceivedPacket]
        let reports: [ReceivedSenderReport]
    }

    /// Queues a read's items: its reports first (what the pipeline dates the packets' units by), then its packets.
    func push(_ packets: ArraySlice<RTSPReceivedPacket>, _ reports: [ReceivedSenderReport], to queue: PacketQueue) {
        if !reports.isEmpty {
            let arrival = packets.first?.arrival ?? ArrivalTime(nanoseconds: 0)
            queue.push(reports.lazy.map { item($0, arrival: arrival) })
        }
        queue.push(packets.lazy.map(item))
    }

    private func item(_ received: RTSPReceivedPacket) -> ReceivedItem {
        ReceivedItem(
            .rtp(received.packet), source: server, destination: local(received.track), arrival: received.arrival,
            isDiscontinuity: received.isDiscontinuity)
    }

    private func item(_ report: ReceivedSenderReport, arrival: ArrivalTime) -> ReceivedItem {
        ReceivedItem(
            .senderReports([report.report]), source: server, destination: local(report.track, rtcp: true),
            arrival: arrival)
    }
}
