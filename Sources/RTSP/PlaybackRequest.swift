import RTP

/// What PLAY asks of a server that plays a recording (an NVR, a camera's own storage): where to start
/// (`Range`), how fast (`Scale`, `Speed`), whether to pace the stream (`Rate-Control`), and whether it is an
/// ONVIF replay (`Require: onvif-replay`, ONVIF Streaming Specification section 6).
public struct PlaybackRequest: Sendable, Hashable {
    /// Where playing starts (and ends), as PLAY's `Range` header says it (RFC 2326 section 12.29).
    public enum Range: Sendable, Hashable, CustomStringConvertible {
        /// Normal play time: seconds from the start of the recording (`npt=5-`, `npt=5-10`).
        case npt(start: Double, end: Double?)
        /// Absolute time, UTC (`clock=20261126T120000Z-`): what NVRs and ONVIF replay take.
        case clock(start: WallClockTime, end: WallClockTime?)

        /// Reads `npt=A-[B]` or `clock=YYYYMMDDThhmmss[.fff]Z-[...]`.
        /// - Throws: ``RTSPClientError`` `.invalidCall` naming what does not read.
        public init(parsing text: String) throws(RTSPClientError) {
            let lowered = text.lowercased()
            func bounds(_ value: Substring) throws(RTSPClientError) -> (Substring, Substring?) {
                guard let dash = value.firstIndex(of: "-") else {
                    throw RTSPClientError(
                        .invalidCall, "the range \(text) has no '-' (npt=START-[END], clock=START-[END])")
                }
                let end = value[value.index(after: dash)...]
                return (value[..<dash], end.isEmpty ? nil : end)
            }
            if lowered.hasPrefix("npt=") {
                let (start, end) = try bounds(lowered.dropFirst(4))
                guard let first = Double(start), first >= 0, first.isFinite else {
                    throw RTSPClientError(.invalidCall, "the range \(text) starts at no number of seconds")
                }
                let last = end.flatMap { Double($0) }
                guard end == nil || (last.map { $0.isFinite && $0 >= first } ?? false) else {
                    throw RTSPClientError(
                        .invalidCall, "the range \(text) ends at no number of seconds after its start")
                }
                self = .npt(start: first, end: last)
            } else if lowered.hasPrefix("clock=") {
                let (start, end) = try bounds(text.dropFirst(6))
                guard let first = UTCTime.parse(start) else {
                    throw RTSPClientError(
                        .invalidCall, "the range \(text) starts at no UTC time (YYYYMMDDThhmmssZ, 1900 to 2036-02-07)")
                }
                let last = end.flatMap { UTCTime.parse($0) }
                guard end == nil || (last.map { $0 >= first } ?? false) else {
                    throw RTSPClientError(.invalidCall, "the range \(text) ends at no UTC time after its start")
                }
                self = .clock(start: first, end: last)
            } else {
                throw RTSPClientError(
                    .invalidCall, "the range \(text) is neither npt=START-[END] nor clock=START-[END]")
            }
        }

        /// The header's value.
        public var description: String {
            switch self {
            case .npt(let start, let end): "npt=\(Self.seconds(start))-\(end.map(Self.seconds) ?? "")"
            case .clock(let start, let end): "clock=\(UTCTime.format(start))-\(end.map(UTCTime.format) ?? "")"
            }
        }

        /// Seconds with three decimals. Any value a caller gives formats: negative ones and those past 10^12 s
        /// are cut to the range (0 to 10^12), one that is not a number is 0.
        package static func seconds(_ value: Double) -> String {
            let bounded = value.isNaN ? 0 : min(max(value, 0), 1e12)
            let millis = Int64((bounded * 1000).rounded())
            let fraction = String(millis % 1000)
            return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        }
    }

    /// Where to start; nil: from the start (`npt=0.000-`).
    public var range: Range?
    /// Playback speed and direction as the viewer sees it (`Scale`: 2 fast forward, -1 backwards); nil: 1.
    public var scale: Double?
    /// Delivery speed (`Speed`, RFC 2326 section 12.35); nil: the server's.
    public var speed: Double?
    /// Whether the server paces the stream in real time; false sends `Rate-Control: no` (ONVIF: as fast as
    /// it can, each unit still carrying its recorded time). Default true.
    public var rateControl: Bool
    /// An ONVIF replay: `Require: onvif-replay` on DESCRIBE, SETUP and PLAY, and the RTP header extension
    /// 0xABAC dates each unit with the time it was recorded.
    public var onvifReplay: Bool

    public init(
        range: Range? = nil, scale: Double? = nil, speed: Double? = nil, rateControl: Bool = true,
        onvifReplay: Bool = false
    ) {
        self.range = range
        self.scale = scale
        self.speed = speed
        self.rateControl = rateControl
        self.onvifReplay = onvifReplay
    }

    /// PLAY's headers for this request (beside `Session`).
    public var playHeaders: [(name: String, value: String)] {
        var headers = [("Range", range?.description ?? "npt=0.000-")]
        if let scale { headers.append(("Scale", Self.number(scale))) }
        if let speed { headers.append(("Speed", Self.number(speed))) }
        if !rateControl { headers.append(("Rate-Control", "no")) }
        if onvifReplay { headers.append(("Require", "onvif-replay")) }
        return headers
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? "\(Int64(value)).0" : "\(value)"
    }
}

/// UTC times as RTSP's `clock=` writes them (ISO 8601 basic: `20261126T120000.250Z`), without Foundation.
enum UTCTime {
    /// Reads `YYYYMMDDThhmmss[.fraction]Z`.
    static func parse(_ text: some StringProtocol) -> WallClockTime? {
        let characters = Array(text.utf8)
        guard characters.count >= 16, characters[8] == UInt8(ascii: "T"), characters.last == UInt8(ascii: "Z") else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in characters[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
            let minute = number(11..<13), let second = number(13..<15), (1...12).contains(month),
            (1...31).contains(day),
            hour < 24, minute < 60, second < 61, year >= 1900
        else { return nil }
        // NTP's era 0 ends on 2036-02-07 (06:28:15 UTC): a later time has no NTP value here.
        var fraction = 0.0
        let rest = characters[15..<(characters.count - 1)]
        if !rest.isEmpty {
            guard rest.first == UInt8(ascii: "."), (2...10).contains(rest.count),
                let digits = number(16..<(characters.count - 1))
            else { return nil }
            fraction = Double(digits) / pow10(rest.count - 1)
        }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let ntpSeconds = UInt64(max(0, seconds + Int64(WallClockTime.unixEpochOffset)))
        guard ntpSeconds <= UInt64(UInt32.max) else { return nil }
        return WallClockTime(ntp: ntpSeconds << 32 | UInt64(fraction * 4_294_967_296))
    }

    /// Writes `YYYYMMDDThhmmss[.mmm]Z` (milliseconds when there are any).
    static func format(_ time: WallClockTime) -> String {
        let seconds = Int64(time.ntp >> 32) - Int64(WallClockTime.unixEpochOffset)
        let millis = Int((Double(time.ntp & 0xFFFF_FFFF) / 4_294_967_296 * 1000).rounded(.down))
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let inDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)\(two(month))\(two(day))T\(two(inDay / 3600))\(two(inDay / 60 % 60))\(two(inDay % 60))"
        if millis > 0 { text += "." + String(repeating: "0", count: 3 - String(millis).count) + String(millis) }
        return text + "Z"
    }

    private static func pow10(_ exponent: Int) -> Double {
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}
