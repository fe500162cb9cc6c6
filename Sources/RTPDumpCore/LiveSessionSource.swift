import NIOConcurrencyHelpers
import RTSPCapture
import PacketCapture
import RTP
import RTSP
@_spi(PacketHandler) import RTSPClient

/// A live RTSP session as the commands' datagram source: packets as they arrive, each presented as a
/// datagram from the server to the track's client port (UDP) or interleaved channel (TCP), and the tracks'
/// sender reports as RTCP datagrams to the port above, before the next packet (the pipeline that reads
/// them dates the units, as it does a capture's). The commands
/// are synchronous; ``nextDatagram()`` waits for the next packet, and returns nil when the session ends
/// or `duration` has passed (then the session is torn down). ``forEachDatagram(_:)`` runs its body on the
/// session's event loop instead, as each read arrives, while the caller waits: no thread hop per read.
package final class LiveSessionSource: DatagramSource, @unchecked Sendable {
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
    /// Sender reports received and not yet presented.
    private let reports: NIOLockedValueBox<[ReceivedSenderReport]>
    private let source: PacketCapture.SocketAddress
    private let ports: [UInt16]
    private var index = 0

    /// Connects and plays (blocking the calling thread until PLAY is answered or the session fails). A
    /// `duration` bounds the whole session, set-up included.
    package static func open(url: String, options: RTSPSessionOptions, duration: Duration?) throws -> LiveSessionSource
    {
        // Packets go from the event loop straight to this queue (the session's packetHandler), which hands
        // them to a consumer on the event loop (forEachDatagram) or to the command's thread (nextDatagram).
        let queue = PacketQueue()
        let reports = NIOLockedValueBox<[ReceivedSenderReport]>([])
        var options = options
        options.packetHandler = { batch, received in
            if !received.isEmpty { reports.withLockedValue { $0 += received } }
            queue.push(batch)
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
        let rest = duration.map { max(.zero, $0 - (ContinuousClock.now - started)) }
        return LiveSessionSource(session: session, queue: queue, reports: reports, duration: rest)
    }

    private init(
        session: RTSPSession, queue: PacketQueue, reports: NIOLockedValueBox<[ReceivedSenderReport]>,
        duration: Duration?
    ) {
        self.session = session
        self.queue = queue
        self.reports = reports
        var info = RTSPSessionInfo()
        info.description = session.sessionDescription
        self.info = info
        // The server's address as connected (a host name resolved, an IPv6 address as such).
        source = SocketAddress(
            address: session.serverAddress.flatMap { IPAddress(parsing: $0) } ?? .v4(0),
            port: UInt16(clamping: session.url.port))
        ports = session.tracks.enumerated().map { index, track -> UInt16 in
            track.transport?.clientPorts?.rtp ?? track.transport?.multicastPorts?.rtp
                ?? UInt16(track.transport?.interleavedChannels?.rtp ?? UInt8(2 * index))
        }
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

    /// Reports taken and not yet presented, for ``nextDatagram()``.
    private var pendingReports: [ReceivedSenderReport] = []

    package func nextDatagram() throws -> UDPDatagram? {
        if !pendingReports.isEmpty { return datagram(pendingReports.removeFirst()) }
        if let held = pendingPacket {
            pendingPacket = nil
            return datagram(held)
        }
        guard let received = try queue.next() else { return nil }
        pendingReports = takeReports()
        guard !pendingReports.isEmpty else { return datagram(received) }
        pendingPacket = received
        return datagram(pendingReports.removeFirst())
    }

    private func takeReports() -> [ReceivedSenderReport] {
        reports.withLockedValue { taken in
            defer { taken = [] }
            return taken
        }
    }

    /// A packet taken while reports went first.
    private var pendingPacket: RTSPReceivedPacket?

    package func forEachDatagram(_ body: (consuming UDPDatagram) throws -> Void) throws {
        // The caller waits until the session ends, so `body` never runs after this returns.
        try withoutActuallyEscaping(body) { body in
            try queue.consumeOnPushingThread(
                { [self] received in
                    for report in takeReports() { try body(datagram(report)) }
                    try body(datagram(received))
                },
                stop: { [session] in Task { await session.teardown() } })
        }
    }

    /// A sender report as the RTCP datagram it came in, to the port above the track's.
    private func datagram(_ report: ReceivedSenderReport) -> UDPDatagram {
        var builder = RTCPCompoundBuilder()
        builder.appendSenderReport(report.report)
        index += 1
        return UDPDatagram(
            recordIndex: index - 1, time: ArrivalTime(nanoseconds: 0), source: source,
            destination: SocketAddress(address: .v4(0x7F00_0001), port: ports[report.track] &+ 1),
            payload: builder.bytes[...], isTruncated: false)
    }

    private func datagram(_ received: RTSPReceivedPacket) -> UDPDatagram {
        index += 1
        var datagram = UDPDatagram(
            recordIndex: index - 1, time: received.arrival, source: source,
            destination: SocketAddress(address: .v4(0x7F00_0001), port: ports[received.track]),
            payload: received.packet.bytes, isTruncated: false)
        datagram.isDiscontinuity = received.isDiscontinuity  // a reconnect or a resume
        return datagram
    }
}
