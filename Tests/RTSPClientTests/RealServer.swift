import Foundation
import TestSupport

/// gst-rtsp-server on loopback (`Fixtures/scripts/rtsp-server.py`), started for a test and stopped after it.
final class RealServer: @unchecked Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent("Fixtures/scripts/rtsp-server.py").path

    let port: Int
    let host: String
    private let process: Process

    var url: String { "rtsp://\(host):\(port)/test" }

    /// Starts the server with `arguments` (after the port) and waits for it to listen; in network
    /// namespace `namespace` (see ``TestNamespace``) listening on `host`, when given.
    init(_ arguments: [String], namespace: String? = nil, host: String = "127.0.0.1") throws {
        self.host = host
        var lastOutput = ""
        for _ in 0..<5 {
            let port = Int.random(in: 30_000..<60_000)
            let process = Process()
            let command = ["/usr/bin/python3", Self.script, String(port), "--address", host] + arguments
            if let namespace {
                process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
                process.arguments = ["netns", "exec", namespace] + command
            } else {
                process.executableURL = URL(fileURLWithPath: command[0])
                process.arguments = Array(command.dropFirst())
            }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            // "ready" on the first line, or the reason it could not start (a taken port, a missing package).
            let line = firstLine(of: output.fileHandleForReading)
            if line == "ready" {
                self.port = port
                self.process = process
                return
            }
            // Not ready: a taken port, or a traceback (a missing package) that spans lines.
            kill(process.processIdentifier, SIGKILL)
            lastOutput =
                line + "\n" + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
        throw ServerError(
            description: "rtsp-server.py did not start (scripts/test installs python3-gi, gir1.2-gst-rtsp-server-1.0 "
                + "and the GStreamer plugins): \(lastOutput)")
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
    }

    deinit { if process.isRunning { stop() } }
}

struct ServerError: Error, CustomStringConvertible {
    let description: String
}

/// A second host on this machine (`Fixtures/scripts/netns.sh`): a network namespace reached over a veth
/// pair, at 10.77.N.2. Needs root.
final class TestNamespace: @unchecked Sendable {
    static var available: Bool { getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") }
    static let script = RealServer.root.appendingPathComponent("Fixtures/scripts/netns.sh").path

    let name: String
    let address: String

    init(_ name: String, subnet: Int) throws {
        self.name = name
        address = "10.77.\(subnet).2"
        _ = try? runTool("/bin/bash", [Self.script, "down", name])
        _ = try runTool("/bin/bash", [Self.script, "up", name, String(subnet)])
    }

    deinit { _ = try? runTool("/bin/bash", [Self.script, "down", name]) }
}
