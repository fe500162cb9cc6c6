import Foundation
import TestSupport

/// `Fixtures/scripts/chaos-proxy.py` between a client and a real server: every Nth interleaved RTP frame the server
/// sends is lost on the way, as a lossy network would lose it.
final class ChaosProxy: @unchecked Sendable {
    static let script = RealServer.root.appendingPathComponent("Fixtures/scripts/chaos-proxy.py").path
    let port: Int
    private let process: Process

    /// A proxy to `target` on loopback that drops every `dropEvery`th RTP frame.
    init(to target: Int, dropEvery: Int) async throws {
        let started = try await onOwnThread { () throws -> RealServer.Started in
            var lastLine = ""
            for _ in 0..<5 {
                let port = Int.random(in: 20_000..<32_768)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                process.arguments = [Self.script, String(port), String(target), "--drop-every", String(dropEvery)]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = output
                try process.run()
                lastLine = firstLine(of: output.fileHandleForReading)
                if lastLine == "ready" { return RealServer.Started(port: port, process: process) }
                kill(process.processIdentifier, SIGKILL)
            }
            throw ServerError(description: "the chaos proxy did not start: \(lastLine)")
        }
        (port, process) = (started.port, started.process)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
