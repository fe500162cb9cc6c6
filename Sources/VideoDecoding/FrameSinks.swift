import RTP
import Synchronization

/// Where decoded frames go. Sinks are called from the decoding task and must not block it for long.
public protocol FrameSink: Sendable {
    func push(_ frame: I420Frame)
}

/// Keeps only the newest frame: a consumer that is slower than the stream (a WebRTC video source, a
/// renderer) always gets the latest picture, never a backlog. Counts the frames it replaced unseen.
public final class LatestFrameSink: FrameSink {
    private struct State {
        var frame: I420Frame?
        var dropped = 0
        var delivered = 0
    }
    private let state = Mutex(State())

    public init() {}

    public func push(_ frame: I420Frame) {
        state.withLock {
            if $0.frame != nil { $0.dropped += 1 }
            $0.frame = frame
        }
    }

    /// The newest frame not yet taken, if any.
    public func take() -> I420Frame? {
        state.withLock {
            let frame = $0.frame
            $0.frame = nil
            if frame != nil { $0.delivered += 1 }
            return frame
        }
    }

    /// Frames replaced by a newer one before anyone took them.
    public var droppedFrames: Int { state.withLock { $0.dropped } }
    /// Frames taken.
    public var deliveredFrames: Int { state.withLock { $0.delivered } }
}

/// Hands frames to an `AsyncStream`, keeping at most `limit` that the consumer has not read yet (the
/// oldest are dropped beyond that).
public struct AsyncFrameSink: FrameSink {
    public let frames: AsyncStream<I420Frame>
    private let continuation: AsyncStream<I420Frame>.Continuation

    public init(limit: Int = 2) {
        (frames, continuation) = AsyncStream.makeStream(
            of: I420Frame.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
    }

    public func push(_ frame: I420Frame) { continuation.yield(frame) }

    /// Ends the stream.
    public func finish() { continuation.finish() }
}

/// A queue of at most `capacity` frames with back-pressure: ``RTP/BoundedQueue/push(_:)`` waits while it is
/// full, so a consumer that must see every frame (a recorder, an analyzer) slows the producer down instead
/// of losing frames.
public typealias BoundedFrameQueue = BoundedQueue<I420Frame>
