/// A payload or a configuration an audio depacketizer cannot take, and why. Payloads that fail are counted
/// (``AudioDepacketizerStatistics``) and skipped, never thrown into the stream; a configuration that fails
/// (an SDP's `config`) is thrown where it is read.
public struct AudioError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// What an audio depacketizer counted.
public struct AudioDepacketizerStatistics: Sendable, Hashable {
    /// Packets whose payload did not parse (AU headers past the payload, sizes that do not add up), skipped.
    public var malformedPackets = 0
    /// Access units left out because a piece of them was lost (a fragment), or cut off by a break.
    public var droppedFrames = 0
    /// Packets of another payload type than the track's, skipped.
    public var otherPayloadTypePackets = 0
    /// Frames held for de-interleaving that were given up when too many were held.
    public var deinterleavingOverflows = 0

    public init() {}
}
