import Foundation
import TestSupport

/// dumpcap (Wireshark's capture engine) capturing one TCP port on loopback to a file, for references made
/// from what really crossed the wire. dumpcap itself, not tshark: tshark runs dumpcap as a child, which a
/// tshark killed before it stops its child leaves running after the tests.
final class LoopbackCapture: @unchecked Sendable {
    let path: String
    private let process: Process

    /// Starts dumpcap and waits (on a thread of its own) until it captures.
    init(port: Int) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(port)-\(UUID()).pcapng").path
        self.path = path
        let started = try await onOwnThread { () throws -> RealServer.Started in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/dumpcap")
            process.arguments = ["-q", "-i", "lo", "-f", "tcp port \(port)", "-w", path]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // dumpcap says "Capturing on 'Loopback: lo'" once the capture runs.
            var seen = ""
            while !seen.contains("Capturing on") {
                let chunk = errors.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw ServerError(description: "dumpcap did not start: \(seen)") }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            Thread.sleep(forTimeInterval: 0.3)  // the message comes just before the socket is open
            return RealServer.Started(port: port, process: process)
        }
        process = started.process
    }

    /// Stops the capture and waits until the file is complete.
    func stop() async throws {
        guard process.isRunning else { return }
        let process = RealServer.Started(port: 0, process: self.process)
        _ = try await onOwnThread {
            Thread.sleep(forTimeInterval: 0.3)  // the last segments reach the capture
            kill(process.process.processIdentifier, SIGINT)
            for _ in 0..<500 where process.process.isRunning { usleep(10_000) }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs a program and returns its standard output, failing on a non-zero exit.
func runTool(_ executable: String, _ arguments: [String]) async throws -> String {
    try await onOwnThread { try runToolBlocking(executable, arguments) }
}

/// ``runTool(_:_:)`` on the calling thread: for set-up in synchronous initializers and deinitializers.
func runToolBlocking(_ executable: String, _ arguments: [String]) throws -> String {
    let run = try runProgramBlocking(executable, arguments)
    guard run.status == 0 else {
        throw ServerError(
            description:
                "\(executable) \(arguments.joined(separator: " ")) exited \(run.status): \(run.stderr.suffix(500))")
    }
    return run.stdout
}
