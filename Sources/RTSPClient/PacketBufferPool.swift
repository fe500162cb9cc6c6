/// The byte arrays that received packets are copied into, reused once their consumer has let go of them,
/// so that a session in steady state allocates nothing per packet.
///
/// Slots are taken in turn. A packet's array is shared between its slot and whoever holds the packet;
/// when the slot comes round again and the packet is gone, the slot's storage is unique and is refilled
/// in place. A consumer that still holds the packet (a reorder buffer, a backlog in the packet sequence)
/// costs nothing but the allocation the pool would have saved: the slot gets fresh storage (copy on write)
/// and the packet keeps its bytes.
///
/// A slot grown for a large packet (a 64 KiB interleaved frame) starts again at the usual size before a packet a
/// quarter of it: its copy-on-write keeps the capacity, so each small packet a consumer holds would cost the
/// large one's size, and a backlog bounded in packet bytes would not be bounded in memory.
struct PacketBufferPool {
    private var slots: [[UInt8]]
    private var next = 0
    private let capacity: Int

    /// `count` slots, each with room for a `capacity`-byte packet before it has to grow.
    init(count: Int = 64, capacity: Int = 2048) {
        self.capacity = capacity
        slots = (0..<max(1, count)).map { _ in
            var slot: [UInt8] = []
            slot.reserveCapacity(capacity)
            return slot
        }
    }

    /// A copy of `bytes`, in the next slot's storage when nothing else holds it.
    mutating func copy(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let index = next
        next = next + 1 == slots.count ? 0 : next + 1
        if slots[index].capacity > max(capacity, 4 * bytes.count) {
            slots[index] = []
            slots[index].reserveCapacity(max(capacity, bytes.count))
        }
        slots[index].removeAll(keepingCapacity: true)
        slots[index].append(contentsOf: bytes)
        return slots[index]
    }
}
