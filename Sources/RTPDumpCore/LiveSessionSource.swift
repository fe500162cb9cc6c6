import Foundation
import PacketCapture
import RTP
import RTSP
import RTSPClient

/// A live RTSP session as the commands' datagram source: packets as they arrive, each presented as a
/// datagram from the server to the track's client port (UDP) or interleaved channel (TCP). The commands
/// are synchronous; ``nextDatagram()`` waits for the next packet, and returns nil when the session ends
/// or `duration` has passed (then the session is torn down). ``forEachDatagram(_:)`` runs its body on the
/// session's event loop instead, as each read arrives, while the caller waits: no thread hop per read.
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
        return datagram(received)
    }

    public func forEachDatagram(_ body: (UDPDatagram) throws -> Void) throws {
        // The caller waits until the session ends, so `body` never runs after this returns.
        try withoutActuallyEscaping(body) { body in
            try queue.consumeOnPushingThread(
                { [self] received in try body(datagram(received)) },
                stop: { [session] in Task { await session.teardown() } })
        }
    }

    private func datagram(_ received: RTSPReceivedPacket) -> UDPDatagram {
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
    /// The reader is waiting for packets (then a push wakes it).
    private var waiting = false
    /// Set by ``consumeOnPushingThread(_:stop:)``: what each pushed packet goes to instead of the queue.
    private var consumer: ((RTSPReceivedPacket) throws -> Void)?
    private var consumerFailure: (any Error)?
    private var failure: (any Error)?

    func push(_ batch: ArraySlice<RTSPReceivedPacket>) {
        condition.lock()
        if let consumer {
            defer { condition.unlock() }
            do {
                for packet in batch { try consumer(packet) }
            } catch {
                consumerFailure = error
                self.consumer = nil
                condition.signal()
            }
            return
        }
        packets.append(contentsOf: batch)
        if packets.count - head > Self.capacity { head = packets.count - Self.capacity }
        let wake = waiting
        condition.unlock()
        // Signalled after unlocking, and only when the reader sleeps: a reader woken while the lock is still
        // held would only block again on it.
        if wake { condition.signal() }
    }

    func end(_ error: (any Error)?) {
        condition.lock()
        ended = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// Runs `consumer` on every packet in order (first those queued, here; then each batch on the thread that
    /// pushes it, under the lock) until the session ends or `consumer` throws; then calls `stop` and
    /// rethrows. Returns when the session has ended, throwing its error if it failed.
    func consumeOnPushingThread(
        _ consumer: @escaping (RTSPReceivedPacket) throws -> Void, stop: () -> Void
    ) throws {
        condition.lock()
        defer { condition.unlock() }
        do {
            while head < packets.count {
                head += 1
                try consumer(packets[head - 1])
            }
        } catch {
            consumerFailure = error
        }
        packets.removeAll(keepingCapacity: true)
        head = 0
        if consumerFailure == nil { self.consumer = consumer }
        while !ended && consumerFailure == nil { condition.wait() }
        self.consumer = nil
        if let consumerFailure {
            stop()
            throw consumerFailure
        }
        if let failure { throw failure }
    }

    func next() throws -> RTSPReceivedPacket? {
        condition.lock()
        defer { condition.unlock() }
        if head == packets.count || (head > 4096 && head * 2 > packets.count) {
            // Release what was taken (it holds the packets' bytes): all of it, keeping the storage, once
            // caught up; or the taken half, for a reader that stays behind.
            packets.removeFirst(head)
            head = 0
        }
        while head == packets.count && !ended {
            waiting = true
            condition.wait()
            waiting = false
        }
        guard head < packets.count else {
            if let failure { throw failure }
            return nil
        }
        head += 1
        return packets[head - 1]
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
