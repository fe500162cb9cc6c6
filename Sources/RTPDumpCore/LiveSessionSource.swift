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

    private let condition = NSCondition()
    private var queue: [UDPDatagram] = []
    private var head = 0
    private var ended = false
    private var failure: (any Error)?
    private var pump: Task<Void, Never>?
    /// Packets held for a command that falls behind before the oldest are dropped.
    static let capacity = 65_536

    /// Connects and plays (blocking the calling thread until PLAY is answered or the session fails).
    public static func open(url: String, options: RTSPSessionOptions, duration: Duration?) throws -> LiveSessionSource {
        let result = BlockingResult<RTSPSession>()
        Task { await result.set { try await RTSPSession.connect(to: url, options: options) } }
        return LiveSessionSource(session: try result.wait(), duration: duration)
    }

    private init(session: RTSPSession, duration: Duration?) {
        self.session = session
        var info = RTSPSessionInfo()
        info.description = session.sessionDescription
        self.info = info
        let source = Self.serverAddress(session.url)
        let ports = session.tracks.enumerated().map { index, track -> UInt16 in
            track.transport?.clientPorts?.rtp ?? UInt16(track.transport?.interleavedChannels?.rtp ?? UInt8(2 * index))
        }
        pump = Task { [self] in
            let deadline = duration.map { ContinuousClock.now + $0 }
            var index = 0
            let stopper = deadline.map { deadline in
                Task {
                    try? await Task.sleep(until: deadline)
                    await session.teardown()
                }
            }
            do {
                for try await received in session.packets {
                    let datagram = UDPDatagram(
                        recordIndex: index, time: received.arrival, source: source,
                        destination: SocketAddress(address: .v4(0x7F00_0001), port: ports[received.track]),
                        payload: received.packet.bytes, isTruncated: false)
                    index += 1
                    push(datagram)
                }
                end(nil)
            } catch {
                end(error)
            }
            stopper?.cancel()
        }
    }

    private static func serverAddress(_ url: RTSPURL) -> PacketCapture.SocketAddress {
        let parts = url.host.split(separator: ".").compactMap { UInt32($0) }
        let address: UInt32 = parts.count == 4 ? parts.reduce(0) { $0 << 8 | ($1 & 0xFF) } : 0
        return SocketAddress(address: .v4(address), port: UInt16(clamping: url.port))
    }

    private func push(_ datagram: UDPDatagram) {
        condition.lock()
        if queue.count - head >= Self.capacity { head += 1 }
        queue.append(datagram)
        condition.signal()
        condition.unlock()
    }

    private func end(_ error: (any Error)?) {
        condition.lock()
        ended = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    public func nextDatagram() throws -> UDPDatagram? {
        condition.lock()
        defer { condition.unlock() }
        while head == queue.count && !ended { condition.wait() }
        if head < queue.count {
            let datagram = queue[head]
            head += 1
            if head > 4096 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return datagram
        }
        if let failure { throw failure }
        return nil
    }

    /// Tears the session down (blocking until it is over).
    public func close() {
        let result = BlockingResult<Void>()
        let session = self.session
        Task { await result.set { await session.teardown() } }
        try? result.wait()
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
