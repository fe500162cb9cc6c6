#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex with a condition variable (POSIX threads), for a synchronous thread that waits on work done on
/// an event loop. Used instead of Foundation's `NSCondition`, which is outside FoundationEssentials: using
/// it linked all of Foundation, its internationalization and ICU into rtpdump (34 MB, a thousand
/// conformance records the Swift runtime searches at start-up).
final class ThreadCondition: @unchecked Sendable {
    // @unchecked: the pthread objects are only used through the calls below, which are thread-safe.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
    /// Unlocks, sleeps until signalled (or woken spuriously: callers wait in a loop), and locks again.
    func wait() { pthread_cond_wait(condition, mutex) }
    func signal() { pthread_cond_signal(condition) }
    func broadcast() { pthread_cond_broadcast(condition) }
}
