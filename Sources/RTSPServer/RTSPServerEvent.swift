import Synchronization

/// What happens to a server's viewers and relayed cameras, as ``RTSPServer/events()`` tells it. A viewer's
/// events name the mounted path, the viewer's address and its RTSP session, which pairs them.
public enum RTSPServerEvent: Sendable, Hashable {
    /// A viewer started playing `path`.
    case viewerJoined(path: String, address: String, session: String)
    /// A viewer's connection (or the UDP socket) stopped taking its media: its units are skipped, video until a
    /// keyframe after it has room again. Told once each time it falls behind.
    case viewerSkipping(path: String, address: String, session: String)
    /// A viewer stopped playing (PAUSE, TEARDOWN, its connection closed, or its session timed out), having been
    /// skipped `skippedUnits` units in all.
    case viewerLeft(path: String, address: String, session: String, skippedUnits: Int)
    /// The camera an ``RTSPRelay`` serves at `path` broke or sent nothing for its session's
    /// ``RTSPClient/RTSPSessionOptions/stallThreshold``; `reason` says which (never its credentials).
    case sourceLost(path: String, reason: String)
    /// The camera of a ``sourceLost(path:reason:)`` sends again, after `gap` without media.
    case sourceBack(path: String, gap: Duration)
}

/// The server's event streams: each ``RTSPServer/events()`` call gets its own, which keeps the newest
/// `bufferLimit` events its reader has not taken (a reader that stops does not grow the server), and ends
/// when its reader's task is cancelled.
final class ServerEvents: Sendable {
    static let bufferLimit = 1024

    private let streams = Mutex<(next: Int, continuations: [Int: AsyncStream<RTSPServerEvent>.Continuation])>(
        (0, [:]))

    func stream() -> AsyncStream<RTSPServerEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: RTSPServerEvent.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let key = streams.withLock { streams in
            defer { streams.next += 1 }
            streams.continuations[streams.next] = continuation
            return streams.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.streams.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    func tell(_ event: RTSPServerEvent) {
        for continuation in streams.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
    }
}
