import RTP

/// One packet record of a capture file: the link-layer frame as captured, and when.
package struct CaptureRecord: Sendable {
    /// The record's position in the file, counting from 0.
    package let index: Int
    /// The capture timestamp.
    package let time: ArrivalTime
    /// The link layer the frame starts with.
    package let linkType: LinkType
    /// The captured bytes (possibly fewer than were on the wire).
    package let data: ArraySlice<UInt8>
    /// The frame's length on the wire.
    package let originalLength: Int

    /// Whether the capture kept fewer bytes than the frame had (snaplen).
    package var isTruncated: Bool { data.count < originalLength }
}

/// Something a capture reader noticed and skipped over without failing.
public struct CaptureWarnings: Hashable, Sendable {
    /// The file ended in the middle of a record or block (a capture that was cut short).
    public var truncatedAtEnd = false
    /// Records whose link type this reader does not decode.
    public var unsupportedLinkType = 0
    /// Frames that do not carry IPv4 or IPv6.
    public var notIP = 0
    /// IP packets that carry neither UDP nor TCP (and TCP segments, when only datagrams are asked for).
    public var notUDP = 0
    /// IP or UDP headers that are inconsistent (bad lengths, bad version).
    public var malformed = 0
    /// UDP datagrams and TCP segments cut short by the capture's snaplen (headers intact, payload not).
    public var snaplenTruncated = 0
    /// IP fragments that were never completed, or were dropped because too many datagrams were pending.
    public var fragmentsDropped = 0
    /// Datagrams put together from fragments.
    public var fragmentsReassembled = 0
    /// pcapng blocks of a type this reader skips (statistics, name resolution, custom).
    public var skippedBlocks = 0
    /// Live sources: packets dropped, oldest first, because their reader fell too far behind.
    public var droppedForSlowReader = 0
    /// Live sources: packets received but not yet read when the source's time was up, left unread.
    public var unreadAtDeadline = 0

    public init() {}

    /// Whether nothing was noticed.
    public var isEmpty: Bool { self == CaptureWarnings() }
}
