import Foundation
import Testing

/// How a program ended and what it printed.
public struct ProgramRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Both outputs, for checks that something appears (or not) anywhere.
    public var all: String { stdout + stderr }
}

/// Runs a program to its end. Both outputs are read at once (standard error on another thread), so a
/// program that writes a lot to either cannot block on a full pipe.
public func runProgram(
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
    try process.run()
    let stderrBox = LockedData()
    let reader = Thread { stderrBox.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = stderrBox.wait()
    process.waitUntilExit()
    return ProgramRun(
        status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
        stderr: String(decoding: stderr, as: UTF8.self))
}

/// The `rtpdump` executable built beside the tests.
public enum RTPDumpBinary {
    public static let path = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("rtpdump").path
    public static var present: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs rtpdump; whatever it prints is checked for the suite's credentials (``TestSecrets``).
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProgramRun {
        let run = try runProgram(path, arguments, environment: environment)
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
