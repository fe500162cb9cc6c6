/// A capture file that cannot be read, with what was wrong and where.
public struct CaptureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. New codes may be added in later versions.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The file does not start like a pcap or pcapng file.
        public static let notACapture = Code(name: "notACapture")
        /// A pcap or pcapng version this reader does not know.
        public static let unsupportedVersion = Code(name: "unsupportedVersion")
        /// A record or block whose length fields cannot be right.
        public static let malformedRecord = Code(name: "malformedRecord")
        /// The file could not be opened or read.
        public static let unreadable = Code(name: "unreadable")
        public var description: String { name }
    }

    /// The kind of problem.
    public let code: Code
    /// What happened and what to try, in a sentence.
    public let reason: String
    /// The byte offset in the file where the problem was found, when it is about the file's content.
    public let offset: Int?

    public init(_ code: Code, _ reason: String, offset: Int? = nil) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(reason) (at byte offset \(offset))" }
        return reason
    }
}
