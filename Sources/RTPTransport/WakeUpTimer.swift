import NIOCore
import RTP

/// One timer on an event loop for the earliest of an owner's deadlines (a sans-I/O machine's `nextWakeUp`): set
/// for a time unless it is already set for one as early, so that a deadline that moves later costs nothing; a
/// timer that fires before what it was set for is due only lets its owner set the next. Used on its event loop.
package struct WakeUpTimer {
    private var pending: (at: ArrivalTime, task: Scheduled<Void>)?

    package init() {}

    /// Runs `wake` on `loop` at `due` (nil: nothing due), unless the timer is set for that time or earlier.
    package mutating func set(at due: ArrivalTime?, on loop: any EventLoop, _ wake: @escaping @Sendable () -> Void) {
        guard let due else { return }
        if let pending, pending.at <= due { return }
        pending?.task.cancel()
        // ArrivalTime reads the monotonic clock NIODeadline does.
        pending = (due, loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(max(0, due.nanoseconds))), wake))
    }

    /// The timer fired: the owner calls this first, then sets the next.
    package mutating func fired() { pending = nil }

    package mutating func cancel() {
        pending?.task.cancel()
        pending = nil
    }
}
