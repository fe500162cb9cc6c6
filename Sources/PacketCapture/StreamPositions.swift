/// Each stream's position in the order the streams appeared, for state kept in arrays beside it. The last
/// key looked up (a stream's own, or another name of it) is remembered: the next packet is almost always of the
/// same one, and then no hashing.
struct StreamPositions: Sendable {
    private var index: [StreamKey: Int] = [:]
    /// The streams, in order of appearance.
    private(set) var keys: [StreamKey] = []
    /// The key last looked up (its stream's own, or another name of it) and its position; -1 before any.
    private var lastKey = StreamKey(
        ssrc: 0, source: SocketAddress(address: .v4(0), port: 0), destination: SocketAddress(address: .v4(0), port: 0))
    private var lastPosition = -1

    /// The position of `key`; a stream not seen before is added at the end (`isNew`: the caller appends
    /// its state there).
    mutating func position(of key: StreamKey) -> (position: Int, isNew: Bool) {
        if lastPosition >= 0, lastKey == key { return (lastPosition, false) }
        if let known = index[key] {
            (lastKey, lastPosition) = (key, known)
            return (known, false)
        }
        let position = keys.count
        index[key] = position
        keys.append(key)
        (lastKey, lastPosition) = (key, position)
        return (position, true)
    }

    /// The position of `key` if it has been seen.
    func existingPosition(of key: StreamKey) -> Int? {
        if lastPosition >= 0, lastKey == key { return lastPosition }
        return index[key]
    }

    /// The position of `key` if it has been seen, remembered as the last looked up.
    mutating func find(_ key: StreamKey) -> Int? {
        if lastPosition >= 0, lastKey == key { return lastPosition }
        guard let known = index[key] else { return nil }
        (lastKey, lastPosition) = (key, known)
        return known
    }

    /// From now on `key` is another name of the stream at `position` (it is not added to ``keys``).
    mutating func alias(_ key: StreamKey, to position: Int) {
        index[key] = position
        (lastKey, lastPosition) = (key, position)
    }
}
