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

    /// How much of a file is read at a time by default. Memory use stays near this, whatever the file's
    /// size (plus what a consumer keeps: a packet keeps the chunk it is in alive). Small enough that a
    /// chunk is still in the core's cache when its records are parsed: on a 185 MB capture, 256 KiB made
    /// `rtpdump extract` 11% and `rtpdump streams` 25% faster than 4 MiB (Docs/Performance.md).
    public static let defaultChunkSize = 256 << 10

    /// How much of the file is read at a time.
    public let chunkSize: Int

    // One of the two is set. (Optionals mutated in place, not an enum: taking a reader out of an enum
    // to call its mutating `next()` copied it on every record.)
    var pcap: PcapReader?
    var pcapng: PcapngReader?
    var decoder = IPDecoder()
    /// Whether ``nextPacket()`` and ``nextDatagram()`` take plain IPv4/UDP records of a classic pcap in one
    /// step (`PcapReader.nextPlainDatagram`); false only where tests and the fuzzer compare with the general path.
    var takesPlainPath = true
    /// The open file, when reading from one; nil for a capture held in memory, or at its end.
    private var file: FileReader?

    /// Reads a capture held in memory.
    public init(bytes: [UInt8]) throws(CaptureError) {
        try self.init(window: CaptureWindow(bytes[...], isFinal: true), chunkSize: bytes.count)
    }

    /// Reads the capture file at `path`, `chunkSize` bytes at a time (more when one record is larger).
    public init(contentsOf path: String, chunkSize: Int = CaptureFile.defaultChunkSize) throws(CaptureError) {
        var file = try FileReader(path: path)
        let size = max(chunkSize, 64)
        let first = try file.read(appendingTo: [], minimum: size)
        try self.init(window: CaptureWindow(first[...], isFinal: file.atEnd), chunkSize: size)
        self.file = file.atEnd ? nil : file
    }

    private init(window: CaptureWindow, chunkSize: Int) throws(CaptureError) {
        self.chunkSize = chunkSize
        let data = window.data
        if PcapReader.matches(data) {
            pcap = try PcapReader(window: window)
        } else if PcapngReader.matches(data) {
            pcapng = try PcapngReader(window: window)
        } else {
            let head = data.prefix(4).map { String(format2: $0) }.joined()
            throw CaptureError(
                .notACapture,
                "not a pcap or pcapng capture (it starts with \(head));"
                    + " save captures from tcpdump, tshark or Wireshark in one of those formats",
                offset: 0)
        }
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
    package mutating func nextRecord() throws(CaptureError) -> CaptureRecord? {
        while true {
            if let record = pcap != nil ? try pcap?.next() : try pcapng?.next() { return record }
            guard let needed = pcap?.window.needed ?? pcapng?.window.needed else { return nil }
            try readMore(needed)
        }
    }

    /// Reads the next chunk (at least `needed` bytes past the read position, when the file has them),
    /// carrying over the unread rest of the current one.
    private mutating func readMore(_ needed: Int) throws(CaptureError) {
        guard var source = file else {
            // No file behind the window (an in-memory capture): the window cannot grow.
            pcap?.window.isFinal = true
            pcapng?.window.isFinal = true
            return
        }
        let rest = pcap?.window.unread ?? pcapng?.window.unread ?? []
        let chunk = try source.read(appendingTo: rest, minimum: max(needed, chunkSize))
        let final = source.atEnd
        file = final ? nil : source
        pcap?.window.advance(to: chunk[...], isFinal: final)
        pcapng?.window.advance(to: chunk[...], isFinal: final)
    }

    /// The next UDP datagram or TCP segment, skipping (and counting) records that hold anything else.
    @_spi(SansIO) public mutating func nextPacket() throws(CaptureError) -> TransportPacket? {
        if takesPlainPath, let datagram = pcap?.nextPlainDatagram() { return .udp(datagram) }
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

    /// The next record as a datagram if it is a plain IPv4/UDP one (``nextPacket()`` would return it as a
    /// datagram), without wrapping it in a ``TransportPacket``; nil, with nothing read, otherwise. For
    /// readers that then go on with ``nextPacket()``.
    package mutating func nextPlainDatagram() -> UDPDatagram? {
        // (Not `takesPlainPath ? pcap?.nextPlainDatagram() : nil`-style expressions: mutating the reader
        // inside an autoclosure copied it.)
        guard takesPlainPath else { return nil }
        return pcap?.nextPlainDatagram()
    }

    /// The next UDP datagram, skipping (and counting as ``CaptureWarnings/notUDP``) everything else.
    public mutating func nextDatagram() throws(CaptureError) -> UDPDatagram? {
        // The common case first, without wrapping the datagram in a TransportPacket and taking it out again.
        if takesPlainPath, let datagram = pcap?.nextPlainDatagram() { return datagram }
        while let packet = try nextPacket() {
            switch packet {
            case .udp(let datagram): return datagram
            case .tcp: decoder.warnings.notUDP += 1
            }
        }
        return nil
    }

}

/// An open file read in chunks with `read(2)`: straight into the chunk, not through a stdio buffer (which
/// took two system calls and a copy of part of each chunk). Closes the file when the last copy of it goes away.
struct FileReader: Sendable {
    private final class Handle: Sendable {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }

    private let handle: Handle
    let path: String
    private(set) var atEnd = false

    init(path: String) throws(CaptureError) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CaptureError(.unreadable, "cannot open capture \(path): \(reason)")
        }
        handle = Handle(descriptor)
        self.path = path
    }

    /// `prefix` followed by up to `minimum - prefix.count` (at least) more bytes of the file, in one new buffer.
    mutating func read(appendingTo prefix: ArraySlice<UInt8>, minimum: Int) throws(CaptureError) -> [UInt8] {
        let want = minimum > prefix.count ? minimum - prefix.count : minimum
        var failure: Int32?
        let descriptor = handle.descriptor
        let bytes = [UInt8](unsafeUninitializedCapacity: prefix.count + want) { buffer, count in
            guard let base = buffer.baseAddress else { return }
            prefix.withUnsafeBufferPointer { p in
                if let source = p.baseAddress { (base).update(from: source, count: p.count) }
            }
            count = prefix.count
            while count < prefix.count + want {
                #if canImport(Darwin)
                    let n = Darwin.read(descriptor, base + count, prefix.count + want - count)
                #elseif canImport(Musl)
                    let n = Musl.read(descriptor, base + count, prefix.count + want - count)
                #else
                    let n = Glibc.read(descriptor, base + count, prefix.count + want - count)
                #endif
                if n > 0 {
                    count += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    if n < 0 { failure = errno }
                    atEnd = true
                    break
                }
            }
        }
        if let failure {
            let reason = String(cString: strerror(failure))
            throw CaptureError(.unreadable, "error reading capture \(path): \(reason)")
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
