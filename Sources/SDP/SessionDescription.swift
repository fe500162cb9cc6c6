/// A session description (RFC 8866), as RTSP servers return it to DESCRIBE.
///
/// Parsing is lenient where cameras are sloppy (missing `o=` or `s=`, lines out of order, `\n` or `\r\n`,
/// empty `a=fmtp`, unknown lines) and strict where it matters: every line is `<letter>=<value>`, media
/// lines must say what they carry, and sizes are bounded.
public struct SessionDescription: Sendable, Hashable {
    /// The most bytes a description may have.
    public static let maxSize = 64 * 1024
    /// The most media sections.
    public static let maxMedia = 32

    /// `s=`, if present.
    public var sessionName: String?
    /// Session-level `a=` attributes, in order.
    public var attributes: [Attribute]
    /// The `m=` sections, in order.
    public var media: [MediaDescription]

    /// Session-level `a=control`, if present.
    public var control: String? { attributes.value(of: "control") }

    /// Parses a description.
    ///
    /// - Throws: ``SDPError`` for a description that is too large, a line that is not `<letter>=<value>`,
    ///   or an `m=` line without a media type, port, protocol and format.
    public init(_ text: String) throws(SDPError) {
        guard text.utf8.count <= Self.maxSize else {
            throw SDPError("session description of \(text.utf8.count) bytes is larger than \(Self.maxSize)")
        }
        var sessionName: String?
        var sessionAttributes: [Attribute] = []
        var media: [MediaDescription] = []
        for (number, rawLine) in text.split(omittingEmptySubsequences: true, whereSeparator: { $0.isNewline })
            .enumerated()
        {
            let line = rawLine.trimmingCharacters(in: " \t")
            if line.isEmpty { continue }
            let characters = Array(line)
            guard characters.count >= 2, characters[1] == "=", characters[0].isLetter else {
                throw SDPError("line \(number + 1) is not <letter>=<value>: \(line.prefix(60))")
            }
            let value = String(characters[2...])
            switch characters[0] {
            case "s" where media.isEmpty: sessionName = value
            case "m":
                guard media.count < Self.maxMedia else { throw SDPError("more than \(Self.maxMedia) media sections") }
                media.append(try MediaDescription(mediaLine: value, lineNumber: number + 1))
            case "a":
                let attribute = Attribute(value)
                if media.isEmpty {
                    sessionAttributes.append(attribute)
                } else {
                    media[media.count - 1].attributes.append(attribute)
                }
            default: continue  // v, o, c, t, b, i, u, e, p, k, r, z: not needed to receive
            }
        }
        self.sessionName = sessionName
        self.attributes = sessionAttributes
        self.media = media
    }
}

/// One `a=` line: `name` or `name:value`.
public struct Attribute: Sendable, Hashable {
    public var name: String
    public var value: String?

    init(_ text: String) {
        if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            value = String(text[text.index(after: colon)...])
        } else {
            name = text
            value = nil
        }
    }
}

extension Array where Element == Attribute {
    /// The value of the first attribute called `name` (lower case; the attributes' names are compared in any case).
    package func value(of name: String) -> String? {
        first { $0.name.lowercased() == name }?.value
    }

    /// The values of every attribute called `name` (lower case), in order.
    package func values(of name: String) -> [String] {
        filter { $0.name.lowercased() == name }.compactMap(\.value)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let first = s.first, set.contains(first) { s.removeFirst() }
        while let last = s.last, set.contains(last) { s.removeLast() }
        return String(s)
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}

/// A session description that cannot be used, with the reason.
public struct SDPError: Error, Hashable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { "invalid SDP: \(reason)" }
}
