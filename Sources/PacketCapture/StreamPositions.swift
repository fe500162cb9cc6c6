/// Each stream's position in the order the streams appeared, for state kept in arrays beside it. The last
/// stream looked up is remembered: the next packet is almost always of the same one, and then no hashing.
struct StreamPositions: Sendable {
    private var index: [StreamKey: Int] = [:]
    /// The streams, in order of appearance.
    private(set) var keys: [StreamKey] = []
    private var last = 0

    /// The position of `key`; a stream not seen before is added at the end (`isNew`: the caller appends
    /// its state there).
    mutating func position(of key: StreamKey) -> (position: Int, isNew: Bool) {
        if last < keys.count, keys[last] == key { return (last, false) }
        if let known = index[key] {
            last = known
            return (known, false)
        }
        last = keys.count
        index[key] = last
        keys.append(key)
        return (last, true)
    }

    /// The position of `key` if it has been seen.
    func existingPosition(of key: StreamKey) -> Int? { index[key] }

    /// From now on `key` is another name of the stream at `position` (it is not added to ``keys``).
    mutating func alias(_ key: StreamKey, to position: Int) {
        index[key] = position
        last = position
    }
}
