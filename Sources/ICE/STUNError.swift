/// A datagram that is not a STUN message this library reads, and why.
@_spi(SansIO) public struct STUNError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in a sentence.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { "not a valid STUN message: \(reason)" }
}
