/// An audio encoding failure a user can do something about.
public struct AudioEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// FFmpeg is missing, or has no encoder for the codec.
        public static let encoderUnavailable = Code(name: "encoderUnavailable")
        /// The format cannot be made (its AAC configuration, its channels).
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// libavcodec or libswresample failed.
        public static let encoderFailure = Code(name: "encoderFailure")
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
