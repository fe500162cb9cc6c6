/// A cursor over the bytes of one ISO BMFF box's body (ISO/IEC 14496-12): big-endian fields, child boxes, each
/// read checked against the body's end, so that a file that lies about a size or a count gives an error, never
/// a read past the bytes.
struct BoxReader {
    let bytes: ArraySlice<UInt8>
    private(set) var position: Int
    /// What is being read, for the error (`moov/trak/mdia/minf/stbl/stsz`).
    let path: String

    init(_ bytes: ArraySlice<UInt8>, path: String) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.path = path
    }

    var remaining: Int { bytes.endIndex - position }

    func fail(_ what: String) -> MP4Error {
        MP4Error(.invalidFile, "\(path): \(what)")
    }

    private mutating func take(_ count: Int) throws(MP4Error) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else {
            throw fail("ends \(count - remaining) bytes early (\(count) needed, \(remaining) left)")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    mutating func skip(_ count: Int) throws(MP4Error) { _ = try take(count) }

    mutating func u8() throws(MP4Error) -> UInt8 { try take(1).first ?? 0 }

    mutating func u16() throws(MP4Error) -> UInt16 { UInt16(try unsigned(2)) }

    mutating func u24() throws(MP4Error) -> UInt32 { UInt32(try unsigned(3)) }

    mutating func u32() throws(MP4Error) -> UInt32 { UInt32(try unsigned(4)) }

    mutating func u64() throws(MP4Error) -> UInt64 { try unsigned(8) }

    private mutating func unsigned(_ count: Int) throws(MP4Error) -> UInt64 {
        try take(count).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func slice(_ count: Int) throws(MP4Error) -> ArraySlice<UInt8> { try take(count) }

    /// A full box's version and flags.
    mutating func versionAndFlags() throws(MP4Error) -> (version: UInt8, flags: UInt32) {
        (try u8(), try u24())
    }

    /// A count of entries of `entrySize` bytes each that must fit in what is left: a count a file made up is
    /// refused before anything is reserved for it.
    mutating func count(entriesOf entrySize: Int, limit: Int) throws(MP4Error) -> Int {
        let count = Int(try u32())
        guard count <= remaining / max(1, entrySize) else {
            throw fail("says \(count) entries of \(entrySize) bytes in \(remaining) bytes")
        }
        guard count <= limit else { throw fail("has \(count) entries, more than the limit of \(limit)") }
        return count
    }

    /// The child boxes from here to the end, each as its type and body.
    mutating func children() throws(MP4Error) -> [Box] {
        var boxes: [Box] = []
        while remaining > 0 {
            guard remaining >= 8 else { throw fail("\(remaining) stray bytes after its last box") }
            let size32 = try u32()
            let type = try u32()
            var headerSize = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let large = Int(exactly: try u64()) else { throw fail("a box larger than this machine reads") }
                size = large
                headerSize = 16
            } else if size32 == 0 {
                size = remaining + 8  // to the end of its parent
            }
            guard size >= headerSize, size - headerSize <= remaining else {
                throw fail("a '\(Box.name(type))' box of \(size) bytes where \(remaining + headerSize) are left")
            }
            boxes.append(Box(type: type, body: try take(size - headerSize)))
        }
        return boxes
    }
}

/// One box: its four-character type and its body.
struct Box {
    let type: UInt32
    let body: ArraySlice<UInt8>

    static func code(_ name: StaticString) -> UInt32 {
        name.withUTF8Buffer { $0.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// The type as text, printable characters only (a hostile file's type is not echoed raw).
    static func name(_ type: UInt32) -> String {
        String(
            (0..<4).map { shift -> Character in
                let byte = UInt8(truncatingIfNeeded: type >> (24 - 8 * shift))
                return (0x20...0x7E).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
            })
    }

    var name: String { Self.name(type) }

    func reader(in parent: String) -> BoxReader {
        BoxReader(body, path: parent.isEmpty ? name : "\(parent)/\(name)")
    }
}

extension [Box] {
    func first(_ name: StaticString) -> Box? {
        let code = Box.code(name)
        return first { $0.type == code }
    }

    func all(_ name: StaticString) -> [Box] {
        let code = Box.code(name)
        return filter { $0.type == code }
    }
}
