import Testing

/// Tests that load the machine with servers and decoders of their own (serving, relaying, talking), and tests that
/// lose packets or miss deadlines when it is loaded (UDP at full rate, counted keepalives), run one at a time, each
/// alone among the others so marked: a loaded two-core machine starves a UDP receiver's thread and the kernel
/// drops what its socket cannot hold. The rest of the suite still runs beside them.
public struct LoadExclusion: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope wraps its tests, which each take the slot: only the test cases take it.
        guard testCase != nil else { return try await function() }
        await LoadSlot.shared.acquire()
        do {
            try await function()
        } catch {
            await LoadSlot.shared.release()
            throw error
        }
        await LoadSlot.shared.release()
    }
}

extension Trait where Self == LoadExclusion {
    /// Runs the test alone among the tests so marked (see ``LoadExclusion``).
    public static var loadExclusive: Self { LoadExclusion() }
}

/// The one place ``LoadExclusion`` tests take in turn; waiting suspends, it blocks no thread.
actor LoadSlot {
    static let shared = LoadSlot()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard taken else { return taken = true }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { taken = false } else { waiting.removeFirst().resume() }
    }
}
