/// Reuses frame buffers, so that steady-state decoding allocates nothing per frame.
///
/// The pool keeps the last `capacity` buffers it handed out. A buffer whose frame the consumer has let go
/// is written again in place; one that a consumer still holds is copied on write (Swift arrays are
/// copy-on-write), so a kept frame is never changed under its owner: that costs one allocation, and only
/// then.
public struct FramePool: Sendable {
    public let capacity: Int
    private var buffers: [[UInt8]] = []
    private var next = 0

    public init(capacity: Int = 4) {
        self.capacity = max(1, capacity)
    }

    /// A buffer of `size` bytes, filled by `fill`.
    public mutating func buffer(size: Int, fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> [UInt8] {
        if buffers.count < capacity {
            buffers.append([])
        }
        let slot = next
        next = (next + 1) % capacity
        var bytes: [UInt8] = []
        swap(&bytes, &buffers[slot])  // the pool lets go of it, so that it is unique unless a frame holds it
        if bytes.count != size { bytes = [UInt8](repeating: 0, count: size) }
        bytes.withUnsafeMutableBufferPointer { fill($0) }
        buffers[slot] = bytes
        return bytes
    }
}
