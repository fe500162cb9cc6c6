/// The result of async work, awaited by a synchronous caller.
final class BlockingResult<Value>: @unchecked Sendable {
    private let condition = ThreadCondition()
    private var result: Result<Value, any Error>?

    func set(_ body: () async throws -> Value) async {
        let value: Result<Value, any Error>
        do { value = .success(try await body()) } catch { value = .failure(error) }
        store(value)
    }

    private func store(_ value: Result<Value, any Error>) {
        condition.lock()
        result = value
        condition.signal()
        condition.unlock()
    }

    func wait() throws -> Value {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result { return try result.get() }
            condition.wait()
        }
    }
}
