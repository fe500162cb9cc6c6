import Foundation

/// ISO BMFF boxes read back from bytes, for the tests: each box's type, its body and its children (for the
/// container boxes the recorder writes).
struct Box: CustomStringConvertible {
    let type: String
    let body: ArraySlice<UInt8>
    let children: [Box]
    /// Where the box starts in the bytes it was read from.
    let offset: Int

    static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "mvex", "moof", "traf", "dinf"]

    /// The boxes of `bytes` (those after a sample entry's fields are not read).
    static func read(_ bytes: ArraySlice<UInt8>) -> [Box] {
        var boxes: [Box] = []
        var i = bytes.startIndex
        while i + 8 <= bytes.endIndex {
            let size = Int(u32(bytes, i))
            guard size >= 8, i + size <= bytes.endIndex else { break }
            let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
            let body = bytes[(i + 8)..<(i + size)]
            var children: [Box] = []
            if containers.contains(type) { children = read(body) }
            if type == "stsd" { children = read(body.dropFirst(8)) }
            boxes.append(Box(type: type, body: body, children: children, offset: i))
            i += size
        }
        return boxes
    }

    /// The first descendant along `path` ("moov/trak/mdia").
    func find(_ path: String) -> Box? {
        var box: Box? = self
        for part in path.split(separator: "/") { box = box?.children.first { $0.type == part } }
        return box
    }

    func all(_ type: String) -> [Box] { children.filter { $0.type == type } }

    var description: String { "\(type)(\(body.count))" + (children.isEmpty ? "" : "\(children)") }

    static func u32(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func u64(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A full box's field at `offset` after its version and flags.
    func field32(_ offset: Int) -> UInt32 { Box.u32(body, body.startIndex + 4 + offset) }
    func field64(_ offset: Int) -> UInt64 { Box.u64(body, body.startIndex + 4 + offset) }
}

/// A `trun`'s samples (the recorder writes duration, size, flags and, for video, a composition offset).
struct TrackRun {
    var durations: [UInt32] = []
    var sizes: [UInt32] = []
    var flags: [UInt32] = []
    var offsets: [Int32] = []

    init(_ trun: Box) {
        let flags = trun.field32(-4) & 0xFFFFFF
        let count = Int(trun.field32(0))
        var at = trun.body.startIndex + 4 + 8
        for _ in 0..<count {
            durations.append(Box.u32(trun.body, at))
            sizes.append(Box.u32(trun.body, at + 4))
            self.flags.append(Box.u32(trun.body, at + 8))
            at += 12
            if flags & 0x800 != 0 {
                offsets.append(Int32(bitPattern: Box.u32(trun.body, at)))
                at += 4
            }
        }
    }

    var syncs: [Bool] { flags.map { $0 & 0x0001_0000 == 0 } }
}
