/// What a stage has completed and its consumer has not yet taken, oldest first. Taking does not move the
/// rest; once all is taken the storage is emptied with its capacity kept, so that in steady state nothing is
/// allocated.
/// (Inlinable, so that each stage gets it specialized for its element: it is asked after every packet.)
package struct ReadyQueue<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline var taken = 0

    @inlinable package init(capacity: Int = 0) { items.reserveCapacity(capacity) }

    /// Whether everything appended has been taken.
    @inlinable package var isEmpty: Bool { taken == items.count }

    @inlinable package mutating func append(_ item: Element) { items.append(item) }

    /// The oldest item not yet taken.
    @inlinable package mutating func take() -> Element? {
        guard taken < items.count else { return nil }
        let item = items[taken]
        taken += 1
        if taken == items.count {
            items.removeAll(keepingCapacity: true)
            taken = 0
        }
        return item
    }
}

extension ReadyQueue: Sendable where Element: Sendable {}
