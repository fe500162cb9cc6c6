import H26x

/// Turns access units into I420 frames.
///
/// Decoders hold codec state and are used from one task at a time. Frames come out in presentation
/// order, each with the timestamp of the access unit it was decoded from.
public protocol VideoDecoder {
    /// Gives the decoder the stream's parameter sets (from the SDP), before the first access unit.
    mutating func configure(parameterSets: ParameterSets) throws
    /// Decodes one access unit; `emit` receives the frames it completes (zero, one, or more with B-frames).
    /// Damaged input is counted and decoding goes on; a throw means the decoder cannot go on at all.
    mutating func decode(_ unit: AccessUnit, emit: (I420Frame) -> Void) throws
    /// Emits the frames still held (at the end of a stream).
    mutating func drain(emit: (I420Frame) -> Void) throws
    /// Drops what is held without emitting it (after a seek or a discontinuity).
    mutating func flush()
    /// Starts over as if new: drops what is held, the parameter sets it learned and its damage state (for
    /// a stream that restarted with other settings).
    mutating func reset()
}

/// A decoder failure a user can do something about.
public struct VideoDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The decoder library has no decoder for the codec.
        public static let decoderUnavailable = Code(name: "decoderUnavailable")
        /// The decoded pictures are in a format that cannot be converted to I420.
        public static let unsupportedPixelFormat = Code(name: "unsupportedPixelFormat")
        /// The decoder library failed in a way that is not about the input.
        public static let decoderFailure = Code(name: "decoderFailure")
        /// Writing frames to a file failed.
        public static let outputFailure = Code(name: "outputFailure")
        /// A setting is out of its range (the reason names it).
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// A track's access units all decoded to nothing.
        public static let noFrames = Code(name: "noFrames")
        /// A call the sequence cannot serve (a decoder given for one track met a second).
        public static let invalidCall = Code(name: "invalidCall")
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
