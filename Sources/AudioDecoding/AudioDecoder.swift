import Audio

/// Turns coded audio frames into PCM.
///
/// Decoders hold codec state and are used from one task at a time. Each coded frame gives zero or one PCM
/// frame with its timestamp; loss before a frame (``Audio/AudioFrame/lostPacketsBefore``) is flagged on what
/// it gives, and the decoder goes on.
public protocol AudioDecoder {
    /// Decodes one coded frame; `emit` receives the PCM it gives (none while a codec primes, one after).
    /// A frame the codec cannot decode is counted and skipped; a throw means the decoder cannot go on.
    mutating func decode(_ frame: AudioFrame, emit: (PCMFrame) -> Void) throws
    /// Emits what is still held (at the end of a stream).
    mutating func drain(emit: (PCMFrame) -> Void) throws
}

/// An audio decoding failure a user can do something about.
public struct AudioDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The decoder library is missing, or has no decoder for the codec.
        public static let decoderUnavailable = Code(name: "decoderUnavailable")
        /// The stream's configuration cannot be used (no AAC config, channels out of range).
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// The decoder library failed in a way that is not about the input.
        public static let decoderFailure = Code(name: "decoderFailure")
        public var description: String { name }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
