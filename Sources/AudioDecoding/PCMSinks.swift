import RTP

/// A queue of at most `capacity` PCM frames with back-pressure (``RTP/BoundedQueue``): for a consumer that
/// must hear everything (a recorder), which slows decoding down rather than losing audio.
public typealias BoundedPCMQueue = BoundedQueue<PCMFrame>

/// Hands PCM frames to an `AsyncStream`, keeping at most `limit` the consumer has not read yet (the oldest
/// are dropped beyond that: a live consumer wants the present).
public struct AsyncPCMSink: Sendable {
    public let frames: AsyncStream<PCMFrame>
    private let continuation: AsyncStream<PCMFrame>.Continuation

    public init(limit: Int = 50) {
        (frames, continuation) = AsyncStream.makeStream(
            of: PCMFrame.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
    }

    public func push(_ frame: PCMFrame) { continuation.yield(frame) }

    /// Ends the stream.
    public func finish() { continuation.finish() }
}
