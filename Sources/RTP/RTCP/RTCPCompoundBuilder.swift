/// Builds the RTCP compound packets a receiver sends: a receiver report, then SDES with its CNAME,
/// optionally a BYE (RFC 3550 section 6.1: every compound starts with a report and carries a CNAME).
@_spi(SansIO) public struct RTCPCompoundBuilder: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Appends a receiver report (at most 31 report blocks; more are left out).
    public mutating func appendReceiverReport(_ report: RTCPReceiverReport) {
        let blocks = report.reportBlocks.prefix(31)
        appendHeader(count: UInt8(blocks.count), type: 201, bodyLength: 4 + blocks.count * RTCPReportBlock.length)
        bytes.appendBigEndian(report.ssrc)
        for block in blocks { block.append(to: &bytes) }
    }

    /// Appends a sender report.
    public mutating func appendSenderReport(_ report: RTCPSenderReport) {
        let blocks = report.reportBlocks.prefix(31)
        appendHeader(count: UInt8(blocks.count), type: 200, bodyLength: 24 + blocks.count * RTCPReportBlock.length)
        bytes.appendBigEndian(report.ssrc)
        bytes.appendBigEndian(report.ntpTimestamp)
        bytes.appendBigEndian(report.rtpTimestamp)
        bytes.appendBigEndian(report.packetCount)
        bytes.appendBigEndian(report.octetCount)
        for block in blocks { block.append(to: &bytes) }
    }

    /// Appends an SDES packet with one chunk holding a CNAME (truncated to 255 bytes).
    public mutating func appendCanonicalName(_ name: String, ssrc: UInt32) {
        let value = Array(name.utf8.prefix(255))
        let chunkLength = (4 + 2 + value.count + 1 + 3) / 4 * 4
        appendHeader(count: 1, type: 202, bodyLength: chunkLength)
        bytes.appendBigEndian(ssrc)
        bytes.append(1)
        bytes.append(UInt8(value.count))
        bytes.append(contentsOf: value)
        bytes.append(contentsOf: repeatElement(0, count: chunkLength - 6 - value.count))
    }

    /// Appends a BYE for `ssrcs` (at most 31), with an optional reason (truncated to 255 bytes).
    public mutating func appendGoodbye(ssrcs: [UInt32], reason: String? = nil) {
        let list = ssrcs.prefix(31)
        let text = reason.map { Array($0.utf8.prefix(255)) }
        let reasonLength = text.map { ($0.count + 1 + 3) / 4 * 4 } ?? 0
        appendHeader(count: UInt8(list.count), type: 203, bodyLength: list.count * 4 + reasonLength)
        for ssrc in list { bytes.appendBigEndian(ssrc) }
        if let text {
            bytes.append(UInt8(text.count))
            bytes.append(contentsOf: text)
            bytes.append(contentsOf: repeatElement(0, count: reasonLength - 1 - text.count))
        }
    }

    /// Appends a feedback message (RFC 4585 section 6.1): its FMT, sender and media SSRCs and control
    /// information (padded with zeros to a multiple of 4 bytes, at most 1,024 bytes).
    public mutating func appendFeedback(_ feedback: RTCPFeedback) {
        let information = Array(feedback.controlInformation.prefix(1024))
        let padded = (information.count + 3) / 4 * 4
        appendHeader(count: feedback.format & 0x1F, type: feedback.packetType, bodyLength: 8 + padded)
        bytes.appendBigEndian(feedback.senderSSRC)
        bytes.appendBigEndian(feedback.mediaSSRC)
        bytes.append(contentsOf: information)
        bytes.append(contentsOf: repeatElement(0, count: padded - information.count))
    }

    private mutating func appendHeader(count: UInt8, type: UInt8, bodyLength: Int) {
        bytes.append(0x80 | count)
        bytes.append(type)
        bytes.appendBigEndian(UInt16(bodyLength / 4))
    }
}
