/// A problem recording to or reading MP4: a track whose codec has no sample entry players take, a configuration a
/// sample entry cannot be made from, a file that cannot be written or read, or one whose boxes do not hold
/// together.
public struct MP4Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. New codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// A codec MP4 players do not take (G.722, G.726, L16), or a track that is not video or audio.
        public static let unsupportedCodec = Code(name: "unsupportedCodec")
        /// A track whose configuration (parameter sets, an AAC config) is missing or does not read.
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// A file that could not be created or written.
        public static let writeFailed = Code(name: "writeFailed")
        /// A file that could not be opened or read.
        public static let readFailed = Code(name: "readFailed")
        /// A file whose boxes do not hold together (a size or count past its box, a table that contradicts
        /// another), or past one of ``MP4Index/Limits``.
        public static let invalidFile = Code(name: "invalidFile")
        public var description: String { name }
    }

    public let code: Code
    /// What happened and what to try.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
