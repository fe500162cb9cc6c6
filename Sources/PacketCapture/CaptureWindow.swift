/// The part of a capture file in memory: a chunk of it, the read position in that chunk, and where the
/// chunk sits in the file. Readers ask for more (``needed``) when a record runs past the chunk; the file
/// then reads the next chunk, starting with the unread rest of this one.
struct CaptureWindow: Sendable {
    var data: ArraySlice<UInt8>
    /// Read position in `data`, counted from its start.
    var offset = 0
    /// File position of `data`'s first byte.
    var fileOffset = 0
    /// Whether nothing follows `data` in the file.
    var isFinal: Bool
    /// Set by a reader that cannot go on: how many bytes from `offset` it needs.
    var needed: Int?

    init(_ data: ArraySlice<UInt8>, isFinal: Bool) {
        self.data = data
        self.isFinal = isFinal
    }

    /// The file position of the read position, for error messages.
    var position: Int { fileOffset + offset }

    /// Bytes left from the read position.
    var remaining: Int { data.count - offset }

    /// The unread bytes.
    var unread: ArraySlice<UInt8> { data[(data.startIndex + offset)...] }

    /// Whether `count` bytes from the read position are here. If not, and more can come, asks for them.
    mutating func has(_ count: Int) -> Bool {
        if remaining >= count { return true }
        if !isFinal { needed = count }
        return false
    }

    /// Continues with `chunk`, which starts with the unread bytes of the current one.
    mutating func advance(to chunk: ArraySlice<UInt8>, isFinal: Bool) {
        fileOffset += offset
        data = chunk
        offset = 0
        needed = nil
        self.isFinal = isFinal
    }
}
