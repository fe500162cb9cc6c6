/// What a step of an iterator produced and the iterator has not returned yet: taken one by one, refilled
/// when empty, its storage reused so that steady state allocates no array.
struct ReadyQueue<Element> {
    private var items: [Element] = []
    private var next = 0

    /// The next item, or nil when all have been taken (the queue is then empty and ready to refill).
    mutating func take() -> Element? {
        if next < items.count {
            next += 1
            return items[next - 1]
        }
        items.removeAll(keepingCapacity: true)
        next = 0
        return nil
    }

    /// Runs `body` with the (empty) storage to append to. Only call it after ``take()`` returned nil.
    mutating func refill(_ body: (inout [Element]) throws -> Void) rethrows {
        var out = items
        items = []  // moved out: `out` is the only reference, so appending reuses its storage
        defer { items = out }
        try body(&out)
    }
}
