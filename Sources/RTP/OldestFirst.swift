extension Array {
    /// Takes out the oldest element of a queue kept oldest first (nil when empty): the depacketizers' lists of
    /// completed units, which hold none or one almost always. The only one is popped, which moves nothing
    /// and keeps the storage for the next.
    @inlinable
    package mutating func takeOldest() -> Element? {
        if isEmpty { return nil }
        return count == 1 ? popLast() : removeFirst()
    }
}
