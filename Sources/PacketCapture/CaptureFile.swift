import RTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A capture file (pcap or pcapng, told apart by its first bytes) read as a sequence of UDP datagrams.
///
/// ```swift
/// var capture = try CaptureFile(contentsOf: "camera.pcap")
/// while let datagram = try capture.nextDatagram() {
///     print(datagram.source, datagram.destination, datagram.payload.count)
/// }
/// print(capture.warnings)
/// ```
public struct CaptureFile: Sendable {

    /// The largest file read (4 GiB).
    public static let maxFileSize = 4 << 30

    // One of the two is set. (Optionals mutated in place, not an enum: taking a reader out of an enum
    // to call its mutating `next()` copied it on every record.)
    var pcap: PcapReader?
    var pcapng: PcapngReader?
    var decoder = IPDecoder()

    /// Reads a capture held in memory.
    public init(bytes: [UInt8]) throws(CaptureError) {
        let data = bytes[...]
        if PcapReader.matches(data) {
            pcap = try PcapReader(data)
        } else if PcapngReader.matches(data) {
            pcapng = try PcapngReader(data)
        } else {
            throw CaptureError(
                .notACapture,
                "not a pcap or pcapng capture (it starts with \(data.prefix(4).map { String(format2: $0) }.joined()));"
                    + " save captures from tcpdump, tshark or Wireshark in one of those formats",
                offset: 0)
        }
    }

    /// Reads the capture file at `path`.
    public init(contentsOf path: String) throws(CaptureError) {
        try self.init(bytes: try Self.readFile(path))
    }

    /// The format of the file: "pcap" or "pcapng".
    public var format: String { pcap != nil ? "pcap" : "pcapng" }

    /// Everything noticed and skipped so far, reader and decoder together.
    public var warnings: CaptureWarnings {
        var all = decoder.warnings
        all.truncatedAtEnd = pcap?.warnings.truncatedAtEnd ?? pcapng?.warnings.truncatedAtEnd ?? false
        all.skippedBlocks = pcapng?.warnings.skippedBlocks ?? 0
        return all
    }

    /// The next raw record.
    public mutating func nextRecord() throws(CaptureError) -> CaptureRecord? {
        if pcap != nil { return try pcap?.next() }
        return try pcapng?.next()
    }

    /// The next UDP datagram or TCP segment, skipping (and counting) records that hold anything else.
    public mutating func nextPacket() throws(CaptureError) -> TransportPacket? {
        while let record = try nextRecord() {
            if let packet = decoder.decode(record.linkType.network(record.data), record: record) {
                return packet
            }
        }
        decoder.reassembler.finish()
        decoder.warnings.fragmentsDropped += decoder.reassembler.dropped
        decoder.reassembler = FragmentReassembler()
        return nil
    }

    /// The next UDP datagram, skipping (and counting as ``CaptureWarnings/notUDP``) everything else.
    public mutating func nextDatagram() throws(CaptureError) -> UDPDatagram? {
        while let packet = try nextPacket() {
            switch packet {
            case .udp(let datagram): return datagram
            case .tcp: decoder.warnings.notUDP += 1
            }
        }
        return nil
    }

    /// Reads a whole file into one buffer of its size: one allocation, one copy.
    static func readFile(_ path: String) throws(CaptureError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            let reason = String(cString: strerror(errno))
            throw CaptureError(.unreadable, "cannot open capture \(path): \(reason)")
        }
        defer { fclose(file) }
        guard fseeko(file, 0, SEEK_END) == 0, case let size = Int(ftello(file)), size >= 0,
            fseeko(file, 0, SEEK_SET) == 0
        else {
            throw CaptureError(
                .unreadable, "capture \(path) is not a regular file (a pipe or device?); save it to a file first")
        }
        guard size <= maxFileSize else {
            throw CaptureError(.unreadable, "capture \(path) is larger than \(maxFileSize >> 30) GiB; split it first")
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = size == 0 ? 0 : fread(buffer.baseAddress, 1, size, file)
        }
        guard bytes.count == size, ferror(file) == 0 else {
            throw CaptureError(.unreadable, "error reading capture \(path) (\(bytes.count) of \(size) bytes read)")
        }
        return bytes
    }
}

extension String {
    init(format2 byte: UInt8) {
        let digits = String(byte, radix: 16)
        self = digits.count == 1 ? "0" + digits : digits
    }
}
