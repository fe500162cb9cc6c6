/// Extends 32-bit RTP timestamps to 64 bits that never wrap. Steps back (B-frames sent in decoding
/// order with presentation timestamps) are kept as steps back.
package struct TimestampExtender: Sendable {
    package init() {}

    private var last: UInt64?

    package mutating func extend(_ timestamp: UInt32) -> UInt64 {
        guard let previous = last else {
            // Start one wrap up, so that a step back from the first timestamp stays positive.
            let first = 1 << 32 | UInt64(timestamp)
            last = first
            return first
        }
        let delta = Int64(Int32(bitPattern: timestamp &- UInt32(truncatingIfNeeded: previous)))
        let extended = UInt64(max(0, Int64(previous) + delta))
        last = extended
        return extended
    }
}
