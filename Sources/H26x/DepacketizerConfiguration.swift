/// Settings shared by the H.264 and H.265 depacketizers.
public struct DepacketizerConfiguration: Sendable, Hashable {
    /// After a loss, drop access units until the next complete keyframe, so that a decoder never sees a
    /// picture that refers to a damaged one. Default false: damaged access units are delivered, flagged.
    public var waitForKeyframeAfterLoss: Bool
    /// The largest NAL unit accepted; a larger one is dropped as damaged. Default 8 MiB.
    public var maxNALSize: Int
    /// The largest access unit accepted; past it the rest of the picture is dropped. Default 32 MiB.
    public var maxAccessUnitSize: Int
    /// How many NAL units the de-interleaving buffer holds before it releases the one first in decoding
    /// order (interleaved H.264, H.265 with DONL). From `sprop-interleaving-depth` /
    /// `sprop-depack-buf-nalus`; 0 means the stream is not interleaved.
    public var deinterleavingDepth: Int
    /// The most bytes the de-interleaving buffer holds (`sprop-deint-buf-req`, `sprop-depack-buf-bytes`).
    /// Default 8 MiB; the initializer takes at most ``maxDeinterleavingBytes``.
    public var deinterleavingBytes: Int

    public static let defaultDeinterleavingBytes = 8 << 20
    /// The most a peer's SDP may make the de-interleaving buffer hold: 64 MiB, two access units at the
    /// largest taken.
    public static let maxDeinterleavingBytes = 64 << 20
    /// The payload type the SDP gives the stream. Packets of another payload type on the same stream are
    /// skipped and counted (Geovision sends type 50 after each IDR), in their place in the sequence, so
    /// they are no loss. Nil (the default): every packet is depacketized.
    public var payloadType: UInt8?

    public init(
        waitForKeyframeAfterLoss: Bool = false, maxNALSize: Int = 8 << 20, maxAccessUnitSize: Int = 32 << 20,
        deinterleavingDepth: Int = 0, deinterleavingBytes: Int = defaultDeinterleavingBytes, payloadType: UInt8? = nil
    ) {
        self.payloadType = payloadType
        self.waitForKeyframeAfterLoss = waitForKeyframeAfterLoss
        self.maxNALSize = max(16, maxNALSize)
        self.maxAccessUnitSize = max(self.maxNALSize, maxAccessUnitSize)
        self.deinterleavingDepth = min(max(0, deinterleavingDepth), 32_767)
        self.deinterleavingBytes = min(max(1, deinterleavingBytes), Self.maxDeinterleavingBytes)
    }
}

/// What a depacketizer counted.
public struct DepacketizerStatistics: Sendable, Hashable {
    /// Packets whose payload structure was invalid (truncated aggregation, bad type, ...), skipped.
    public var malformedPackets = 0
    /// NAL units dropped because a fragment was lost or the fragments did not fit together, or because the
    /// stream ended after them and before the picture they belong to.
    public var droppedNALUnits = 0
    /// Access units dropped while waiting for a keyframe after loss.
    public var skippedAccessUnits = 0
    /// Packets whose payload structure this library does not take (see the error in `lastError`).
    public var unsupportedPackets = 0
    /// Camera quirks met and handled (FU with both start and end bits, fragment without end bit, ...).
    public var quirks = 0
    /// Packets of another payload type than ``DepacketizerConfiguration/payloadType``, skipped.
    public var otherPayloadTypePackets = 0
    public init() {}
}
