import Synchronization

/// How many connections a listener holds at once, in all and (when it says) from one client address: asked as
/// each connection comes, told as each closes. What the RTSP server and the WHEP side both count.
package final class ConnectionBudget: Sendable {
    /// Why a connection is not taken.
    package enum Refusal: Sendable {
        /// The listener holds `maxConnections` already.
        case full
        /// Its address holds `maxPerAddress` already.
        case addressFull
    }

    package let maxConnections: Int
    package let maxPerAddress: Int?
    private let counts = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    package init(maxConnections: Int, maxPerAddress: Int? = nil) {
        self.maxConnections = maxConnections
        self.maxPerAddress = maxPerAddress
    }

    /// Counts a connection from `address` (nil: counted in all only) in; the refusal, and nothing counted, when
    /// the listener or the address is full.
    package func admit(from address: String? = nil) -> Refusal? {
        counts.withLock { counts -> Refusal? in
            guard counts.total < maxConnections else { return .full }
            if let address {
                let fromAddress = counts.byAddress[address, default: 0]
                if let maxPerAddress, fromAddress >= maxPerAddress { return .addressFull }
                counts.byAddress[address] = fromAddress + 1
            }
            counts.total += 1
            return nil
        }
    }

    /// Counts a connection that was admitted from `address` out (it closed).
    package func release(from address: String? = nil) {
        counts.withLock { counts in
            counts.total -= 1
            guard let address else { return }
            let fromAddress = counts.byAddress[address, default: 1] - 1
            counts.byAddress[address] = fromAddress > 0 ? fromAddress : nil
        }
    }
}
