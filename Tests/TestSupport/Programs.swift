import Foundation
import Testing

/// How a program ended and what it printed.
public struct ProgramRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// How long the program ran: from its start to its exit, not counting a wait for a place to run.
    public var duration: Duration
    /// Both outputs, for checks that something appears (or not) anywhere.
    public var all: String { stdout + stderr }
}

/// Runs `body`, which blocks (waits for a process, reads a pipe), on a thread of its own, and awaits its
/// result. A test that blocked one of the concurrency pool's threads instead (two on two cores) would starve
/// every other test's tasks meanwhile: a session's consumer, a scripted server's sender.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs a program to its end, on a thread of its own (``onOwnThread(_:)``). Both outputs are read at once
/// (standard error on another thread), so a program that writes a lot to either cannot block on a full pipe.
/// At most ``ProgramSlots/count`` of them run at once, as when each held a pool thread: the suite's tests
/// all start together, and a dozen decoders and servers at once on two cores starve the event loops of the
/// tests that receive UDP (loss) or measure time.
public func runProgram(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:]
) async throws -> ProgramRun {
    await ProgramSlots.shared.acquire()
    let result = await Result(catching: {
        try await onOwnThread { try runProgramBlocking(executable, arguments, environment: environment) }
    })
    await ProgramSlots.shared.release()
    return try result.get()
}

/// Places for programs that run to their end: waiting for one suspends, it blocks no thread.
public actor ProgramSlots {
    public static let count = 2
    public static let shared = ProgramSlots()
    private var free = count
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func acquire() async {
        guard free == 0 else { return free -= 1 }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// ``runProgram(_:_:environment:)`` on the calling thread: for synchronous set-up (an initializer) only.
public func runProgramBlocking(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:]
) throws -> ProgramRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let started = ContinuousClock.now
    try process.run()
    let stderrBox = LockedData()
    let reader = Thread { stderrBox.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = stderrBox.wait()
    process.waitUntilExit()
    return ProgramRun(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self), duration: ContinuousClock.now - started)
}

/// The `rtpdump` executable built beside the tests.
public enum RTPDumpBinary {
    public static let path = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("rtpdump").path
    public static var present: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs rtpdump; whatever it prints is checked for the suite's credentials (``TestSecrets``).
    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProgramRun {
        let run = try await runProgram(path, arguments, environment: environment)
        TestSecrets.expectNone(in: run.all, from: "rtpdump \(arguments.first ?? "")")
        return run
    }
}

/// The first line a long-running program (a test server or sender) prints, without waiting for more.
public func firstLine(of handle: FileHandle) -> String {
    var line: [UInt8] = []
    while let byte = handle.readData(ofLength: 1).first, byte != 0x0A { line.append(byte) }
    return String(decoding: line, as: UTF8.self)
}

/// Data handed from one thread to another, waited for.
private final class LockedData: @unchecked Sendable {
    private let condition = NSCondition()
    private var data: Data?

    func set(_ value: Data) {
        condition.lock()
        data = value
        condition.signal()
        condition.unlock()
    }

    func wait() -> Data {
        condition.lock()
        defer { condition.unlock() }
        while data == nil { condition.wait() }
        return data ?? Data()
    }
}
