/// One `m=` section: what a track carries and how.
public struct MediaDescription: Sendable, Hashable {
    /// `video`, `audio`, `application`...
    public var mediaType: String
    public var port: Int
    /// `RTP/AVP`, `RTP/SAVP`, `RTP/AVPF`...
    public var transportProtocol: String
    /// The payload types listed on the `m=` line.
    public var payloadTypes: [UInt8]
    /// The section's `a=` attributes, in order.
    public var attributes: [Attribute] = []

    init(mediaLine: String, lineNumber: Int) throws(SDPError) {
        let fields = mediaLine.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 4, let port = Int(fields[1].split(separator: "/").first ?? "") else {
            throw SDPError("line \(lineNumber): m= needs <media> <port> <proto> <format>: \(mediaLine.prefix(60))")
        }
        mediaType = String(fields[0])
        self.port = port
        transportProtocol = String(fields[2])
        payloadTypes = fields[3...].compactMap { UInt8($0) }.filter { $0 < 128 }
    }

    /// `a=control`, the URL (or URL suffix) to SETUP this track with.
    public var control: String? { attributes.value(of: "control") }

    /// The `a=rtpmap` of `payloadType`: encoding name, clock rate, channels.
    public func rtpMap(for payloadType: UInt8) -> RTPMap? {
        for value in attributes.values(of: "rtpmap") {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, UInt8(parts[0]) == payloadType else { continue }
            let encoding = parts[1].split(separator: "/")
            guard let name = encoding.first, encoding.count >= 2, let rate = Int(encoding[1]) else { continue }
            return RTPMap(
                encodingName: String(name), clockRate: rate, channels: encoding.count > 2 ? Int(encoding[2]) : nil)
        }
        return nil
    }

    /// The `a=fmtp` parameters of `payloadType` (names lowercased; an empty `a=fmtp` gives none).
    public func formatParameters(for payloadType: UInt8) -> FormatParameters {
        for value in attributes.values(of: "fmtp") {
            let trimmed = value.trimmingCharacters(in: " \t")
            let split = trimmed.split(separator: " ", maxSplits: 1)
            guard let first = split.first, UInt8(first) == payloadType else { continue }
            return FormatParameters(split.count > 1 ? String(split[1]) : "")
        }
        return FormatParameters("")
    }

    /// `a=crypto` lines (RFC 4568), raw.
    public var cryptoAttributes: [String] { attributes.values(of: "crypto") }

    /// Whether the server's description says it only receives here (`a=sendonly`, seen from the client): ONVIF's
    /// audio backchannel (ONVIF Streaming Specification 5.3), the section the client sends on.
    public var isBackchannel: Bool { attributes.contains { $0.name.lowercased() == "sendonly" } }
}

/// `a=rtpmap:<pt> <encoding>/<clock rate>[/<channels>]`.
public struct RTPMap: Sendable, Hashable {
    public var encodingName: String
    public var clockRate: Int
    public var channels: Int?

    /// The clock rates a format is taken with (`audioFormat`, `videoFormat`): real ones are 8 kHz to 192 kHz,
    /// 90 kHz for video. Beyond 10 MHz products of a rate with a frame length or a duration could pass what
    /// 32-bit fields (a decoder's, a WAV header's) hold, so a section naming one is left unplayed.
    public static let clockRates: ClosedRange<Int> = 1...10_000_000

    /// Whether ``clockRate`` is one a format is taken with.
    public var hasUsableClockRate: Bool { Self.clockRates.contains(clockRate) }
}

/// `a=fmtp` parameters: `name=value` pairs separated by `;`.
public struct FormatParameters: Sendable, Hashable {
    public private(set) var values: [String: String] = [:]

    public init(_ text: String) {
        for pair in text.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: " \t")
            guard let equals = trimmed.firstIndex(of: "=") else {
                if !trimmed.isEmpty { values[trimmed.lowercased()] = "" }
                continue
            }
            values[trimmed[..<equals].lowercased()] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(
                in: " \t")
        }
    }

    public subscript(name: String) -> String? { values[name.lowercased()] }

    /// An integer parameter, nil when absent or not a number.
    public func integer(_ name: String) -> Int? { self[name].flatMap { Int($0) } }
}
