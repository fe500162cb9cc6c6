import Foundation
import PacketCapture
import RTP
import RTSP
import RTSPClient

/// A live RTSP session as the commands' datagram source: packets as they arrive, each presented as a
/// datagram from the server to the track's client port (UDP) or interleaved channel (TCP). The commands
/// are synchronous; ``nextDatagram()`` waits for the next packet, and returns nil when the session ends
/// or `duration` has passed (then the session is torn down).
public final class LiveSessionSource: DatagramSource, @unchecked Sendable {
    public let session: RTSPSession
    /// What the commands read from a session capture: the SDP and the transports.
    public let info: RTSPSessionInfo
    public var warnings: CaptureWarnings { CaptureWarnings() }

    private let queue: PacketQueue
    private let source: PacketCapture.SocketAddress
    private let ports: [UInt16]
    private var index = 0

    /// Connects and plays (blocking the calling thread until PLAY is answered or the session fails).
    public static func open(url: String, options: RTSPSessionOptions, duration: Duration?) throws -> LiveSessionSource {
        // Packets go from the event loop straight to this queue (the session's packetHandler): one thread
        // hop per read, to the command's thread.
        let queue = PacketQueue()
        var options = options
        options.packetHandler = { batch in queue.push(batch) }
        let result = BlockingResult<RTSPSession>()
        Task { [options] in await result.set { try await RTSPSession.connect(to: url, options: options) } }
        return LiveSessionSource(session: try result.wait(), queue: queue, duration: duration)
    }

    private init(session: RTSPSession, queue: PacketQueue, duration: Duration?) {
        self.session = session
        self.queue = queue
        var info = RTSPSessionInfo()
        info.description = session.sessionDescription
        self.info = info
        source = Self.serverAddress(session.url)
        ports = session.tracks.enumerated().map { index, track -> UInt16 in
            track.transport?.clientPorts?.rtp ?? track.transport?.multicastPorts?.rtp
                ?? UInt16(track.transport?.interleavedChannels?.rtp ?? UInt8(2 * index))
        }
        // The packet sequence only ends (the packets went to the queue): that is the session's end.
        Task {
            let stopper = duration.map { duration in
                Task {
                    try? await Task.sleep(for: duration)
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

    private static func serverAddress(_ url: RTSPURL) -> PacketCapture.SocketAddress {
        let parts = url.host.split(separator: ".").compactMap { UInt32($0) }
        let address: UInt32 = parts.count == 4 ? parts.reduce(0) { $0 << 8 | ($1 & 0xFF) } : 0
        return SocketAddress(address: .v4(address), port: UInt16(clamping: url.port))
    }

    public func nextDatagram() throws -> UDPDatagram? {
        guard let received = try queue.next() else { return nil }
        index += 1
        return UDPDatagram(
            recordIndex: index - 1, time: received.arrival, source: source,
            destination: SocketAddress(address: .v4(0x7F00_0001), port: ports[received.track]),
            payload: received.packet.bytes, isTruncated: false)
    }
}

/// Packets from the event loop to a synchronous reader, which waits for them.
final class PacketQueue: @unchecked Sendable {
    /// Packets held for a reader that falls behind before the oldest are dropped.
    static let capacity = 65_536

    private let condition = NSCondition()
    private var packets: [RTSPReceivedPacket] = []
    private var head = 0
    private var ended = false
    private var failure: (any Error)?

    func push(_ batch: ArraySlice<RTSPReceivedPacket>) {
        condition.lock()
        packets.append(contentsOf: batch)
        if packets.count - head > Self.capacity { head = packets.count - Self.capacity }
        condition.signal()
        condition.unlock()
    }

    func end(_ error: (any Error)?) {
        condition.lock()
        ended = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    func next() throws -> RTSPReceivedPacket? {
        condition.lock()
        defer { condition.unlock() }
        while head == packets.count && !ended { condition.wait() }
        guard head < packets.count else {
            if let failure { throw failure }
            return nil
        }
        head += 1
        let packet = packets[head - 1]
        if head > 4096 && head * 2 > packets.count {
            packets.removeFirst(head)
            head = 0
        }
        return packet
    }
}

/// The result of async work, awaited by a synchronous caller.
final class BlockingResult<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<Value, any Error>?

    func set(_ body: () async throws -> Value) async {
        let value: Result<Value, any Error>
        do { value = .success(try await body()) } catch { value = .failure(error) }
        store(value)
    }

    private func store(_ value: Result<Value, any Error>) {
        condition.lock()
        result = value
        condition.signal()
        condition.unlock()
    }

    func wait() throws -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result { return try result.get() }
            condition.wait()
        }
    }
}
