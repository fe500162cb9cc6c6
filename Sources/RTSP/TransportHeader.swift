/// The parts of an RTSP Transport header (RFC 2326 section 12.39) a receiver needs, for one transport
/// specification (the first of a comma-separated list).
public struct TransportHeader: Sendable, Hashable {
    /// `RTP/AVP`, `RTP/AVP/TCP`, `RTP/SAVP`...
    public var profile: String
    public var isMulticast: Bool
    /// `interleaved=a-b`: the channels of RTP and RTCP inside the RTSP connection.
    public var interleavedChannels: (rtp: UInt8, rtcp: UInt8)?
    public var clientPorts: (rtp: UInt16, rtcp: UInt16)?
    public var serverPorts: (rtp: UInt16, rtcp: UInt16)?
    /// `ssrc=`, hexadecimal as RFC 2326 writes it.
    public var ssrc: UInt32?
    /// `ssrc=` in each reading that is a number: hex, and decimal as some cameras write it.
    public var ssrcReadings: Set<UInt32>
    /// `destination=`: the multicast group (or unicast address) the media is sent to.
    public var destination: String?
    /// `source=`: the address the media comes from, when it is not the RTSP server's.
    public var source: String?
    /// `port=a-b`: the multicast ports.
    public var multicastPorts: (rtp: UInt16, rtcp: UInt16)?
    /// `ttl=`: how many routers a multicast stream crosses.
    public var ttl: UInt8?
    /// `mode=`: `play` or `record` (lowercased, quotes taken off); nil when not given (play).
    public var mode: String?

    /// A header of these parts (what a client offers, what a server answers); ``serialized()`` writes it.
    public init(
        profile: String, isMulticast: Bool = false, interleavedChannels: (rtp: UInt8, rtcp: UInt8)? = nil,
        clientPorts: (rtp: UInt16, rtcp: UInt16)? = nil, serverPorts: (rtp: UInt16, rtcp: UInt16)? = nil,
        ssrc: UInt32? = nil, destination: String? = nil, source: String? = nil,
        multicastPorts: (rtp: UInt16, rtcp: UInt16)? = nil, ttl: UInt8? = nil, mode: String? = nil
    ) {
        self.profile = profile
        self.isMulticast = isMulticast
        self.interleavedChannels = interleavedChannels
        self.clientPorts = clientPorts
        self.serverPorts = serverPorts
        self.ssrc = ssrc
        ssrcReadings = ssrc.map { [$0] } ?? []
        self.destination = destination
        self.source = source
        self.multicastPorts = multicastPorts
        self.ttl = ttl
        self.mode = mode
    }

    /// Reads the first transport specification of `value` (what it cannot read is nil).
    public init(_ value: String) {
        let first = value.split(separator: ",").first.map(String.init) ?? value
        let fields = first.split(separator: ";").map { String($0).trimmingCharacters() }
        profile = fields.first ?? ""
        isMulticast = fields.contains { $0.lowercased() == "multicast" }
        // `a-b` or `a`, each of decimal digits only (`-5--4` is not a pair: no sign, no empty part).
        func pair(_ name: String) -> (Int, Int)? {
            guard let field = fields.first(where: { $0.lowercased().hasPrefix(name + "=") }) else { return nil }
            let parts = field.dropFirst(name.count + 1).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ Self.isNumber($0) }),
                let a = Int(parts[0]), let b = parts.count > 1 ? Int(parts[1]) : a + 1
            else { return nil }
            return (a, b)
        }
        interleavedChannels = pair("interleaved").flatMap { a, b in
            (0...255).contains(a) && (0...255).contains(b) ? (UInt8(a), UInt8(b)) : nil
        }
        func ports(_ name: String) -> (UInt16, UInt16)? {
            pair(name).flatMap { a, b in
                (0...65535).contains(a) && (0...65535).contains(b) ? (UInt16(a), UInt16(b)) : nil
            }
        }
        clientPorts = ports("client_port")
        serverPorts = ports("server_port")
        func text(_ name: String) -> String? {
            fields.first { $0.lowercased().hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        destination = text("destination")
        source = text("source")
        multicastPorts = ports("port")
        ttl = text("ttl").flatMap { Self.isNumber($0[...]) ? UInt8($0) : nil }
        mode = text("mode").map { $0.filter { $0 != "\"" }.lowercased() }
        let ssrcText = fields.first { $0.lowercased().hasPrefix("ssrc=") }.map { $0.dropFirst(5) }
        ssrc = ssrcText.flatMap { UInt32($0, radix: 16) }
        ssrcReadings = ssrcText.map(Self.ssrcReadings) ?? []
    }

    public static func == (lhs: TransportHeader, rhs: TransportHeader) -> Bool {
        lhs.profile == rhs.profile && lhs.isMulticast == rhs.isMulticast
            && lhs.interleavedChannels?.rtp == rhs.interleavedChannels?.rtp
            && lhs.interleavedChannels?.rtcp == rhs.interleavedChannels?.rtcp
            && lhs.clientPorts?.rtp == rhs.clientPorts?.rtp && lhs.serverPorts?.rtp == rhs.serverPorts?.rtp
            && lhs.ssrc == rhs.ssrc && lhs.destination == rhs.destination && lhs.source == rhs.source
            && lhs.multicastPorts?.rtp == rhs.multicastPorts?.rtp && lhs.ttl == rhs.ttl && lhs.mode == rhs.mode
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(profile) }
}

extension TransportHeader {
    /// The header's value as it goes on the wire, in RFC 2326's order: `RTP/AVP/TCP;unicast;interleaved=0-1`.
    /// Reading it back gives the same header.
    public func serialized() -> String {
        var fields = [profile, isMulticast ? "multicast" : "unicast"]
        if let destination { fields.append("destination=\(destination)") }
        if let source { fields.append("source=\(source)") }
        if let channels = interleavedChannels { fields.append("interleaved=\(channels.rtp)-\(channels.rtcp)") }
        if let ports = multicastPorts { fields.append("port=\(ports.rtp)-\(ports.rtcp)") }
        if let ttl { fields.append("ttl=\(ttl)") }
        if let ports = clientPorts { fields.append("client_port=\(ports.rtp)-\(ports.rtcp)") }
        if let ports = serverPorts { fields.append("server_port=\(ports.rtp)-\(ports.rtcp)") }
        if let ssrc { fields.append("ssrc=\(Self.ssrcText(ssrc))") }
        if let mode { fields.append("mode=\(mode)") }
        // A field holds no separator of the header's own: what a caller put there cannot add a field.
        return fields.map { $0.filter { $0 != ";" && $0 != "," } }.joined(separator: ";")
    }

    /// An SSRC as RFC 2326 writes it: eight hex digits, no prefix.
    static func ssrcText(_ ssrc: UInt32) -> String {
        let digits = String(ssrc, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// Whether `text` is 1 to 5 decimal digits (a port or a channel, no sign).
    static func isNumber(_ text: Substring) -> Bool {
        (1...5).contains(text.utf8.count)
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// An SSRC as servers write it (`ssrc=` in Transport and RTP-Info): hex, as RFC 2326 and RFC 7826 have
    /// it, and decimal, as some cameras do; each reading that fits 32 bits.
    static func ssrcReadings(_ text: Substring) -> Set<UInt32> {
        Set([UInt32(text, radix: 16), UInt32(text, radix: 10)].compactMap { $0 })
    }
}
