/// A problem recording to MP4: a track whose codec has no sample entry players take, a configuration a
/// sample entry cannot be made from, or a file that cannot be written.
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
