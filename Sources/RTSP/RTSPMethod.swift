/// An RTSP method (RFC 2326 section 10; RFC 7826 section 13): the ones this library sends and answers,
/// named, and any other a peer sends, by its name.
public struct RTSPMethod: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method's name as it goes on the wire (upper case, as the RFCs write them).
    public let name: String

    public init(_ name: String) { self.name = name.uppercased() }
    public init(stringLiteral name: String) { self.init(name) }

    public static let options = RTSPMethod("OPTIONS")
    public static let describe = RTSPMethod("DESCRIBE")
    public static let setup = RTSPMethod("SETUP")
    public static let play = RTSPMethod("PLAY")
    public static let pause = RTSPMethod("PAUSE")
    public static let teardown = RTSPMethod("TEARDOWN")
    public static let getParameter = RTSPMethod("GET_PARAMETER")
    public static let setParameter = RTSPMethod("SET_PARAMETER")

    public var description: String { name }
}
