import NIOConcurrencyHelpers

/// The result of async work, awaited by a synchronous caller.
final class BlockingResult<Value>: @unchecked Sendable {
    // @unchecked: `result` is only read and written under `lock`.
    /// 0 until the result is stored, then 1.
    private let lock = ConditionLock(value: 0)
    private var result: Result<Value, any Error> = .failure(CancellationError())

    func set(_ body: () async throws -> Value) async {
        let value: Result<Value, any Error>
        do { value = .success(try await body()) } catch { value = .failure(error) }
        lock.lock()
        result = value
        lock.unlock(withValue: 1)
    }

    func wait() throws -> Value {
        lock.lock(whenValue: 1)
        defer { lock.unlock() }
        return try result.get()
    }
}

/// Runs `body` in a task and waits for its result on the calling (synchronous) thread.
package func waitFor<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
    let result = BlockingResult<Value>()
    Task { await result.set(body) }
    return try result.wait()
}
