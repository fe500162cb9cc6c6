/// A queue of at most `capacity` elements with back-pressure: ``push(_:)`` waits while it is full, so a
/// consumer that must see everything (a recorder, an analyzer) slows the producer down instead of losing
/// any. What the decoders' queue sinks are (`BoundedFrameQueue`, `BoundedPCMQueue`).
public actor BoundedQueue<Element: Sendable> {
    public let capacity: Int
    private var elements: [Element] = []
    private var waitingProducers: [CheckedContinuation<Void, Never>] = []
    private var waitingConsumer: CheckedContinuation<Element?, Never>?
    private var finished = false

    public init(capacity: Int = 4) {
        self.capacity = max(1, capacity)
    }

    /// Adds an element, waiting while the queue is full.
    public func push(_ element: Element) async {
        while elements.count >= capacity && !finished {
            await withCheckedContinuation { waitingProducers.append($0) }
        }
        guard !finished else { return }
        if let consumer = waitingConsumer {
            waitingConsumer = nil
            consumer.resume(returning: element)
        } else {
            elements.append(element)
        }
    }

    /// The next element, waiting for one; nil once the queue is finished and empty.
    public func next() async -> Element? {
        if !elements.isEmpty {
            let element = elements.removeFirst()
            if !waitingProducers.isEmpty { waitingProducers.removeFirst().resume() }
            return element
        }
        if finished { return nil }
        return await withCheckedContinuation { waitingConsumer = $0 }
    }

    /// No more elements: wakes everyone up.
    public func finish() {
        finished = true
        waitingConsumer?.resume(returning: nil)
        waitingConsumer = nil
        for producer in waitingProducers { producer.resume() }
        waitingProducers.removeAll()
    }
}
