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
    /// namespace `namespace` (see ``TestNamespace``) listening on `host`, when given. The wait is on a thread
    /// of its own (``onOwnThread(_:)``).
    init(_ arguments: [String], namespace: String? = nil, host: String = "127.0.0.1") async throws {
        self.host = host
        let started = try await onOwnThread {
            try Self.start(arguments, namespace: namespace, host: host, port: nil)
        }
        (port, process) = (started.port, started.process)
    }

    /// Starts the server again on the port it had (a camera that restarts), once the old one is stopped.
    func restarted(_ arguments: [String]) async throws -> RealServer {
        let (host, port) = (self.host, self.port)
        let started = try await onOwnThread { try Self.start(arguments, namespace: nil, host: host, port: port) }
        return RealServer(host: host, started: started)
    }

    private init(host: String, started: Started) {
        self.host = host
        (port, process) = (started.port, started.process)
    }

    struct Started: @unchecked Sendable {  // Process is not Sendable; it moves from one thread to the next
        let port: Int
        let process: Process
    }

    /// Blocks until the server prints "ready" (or fails to start): on a random port when `port` is nil.
    private static func start(_ arguments: [String], namespace: String?, host: String, port fixed: Int?) throws
        -> Started
    {
        var lastOutput = ""
        for _ in 0..<(fixed == nil ? 5 : 50) {
            // Below Linux's ephemeral range (32768-60999): a port the kernel hands out for any outgoing connection
            // could be taken between a camera's stop and its restart on the same port.
            let port = fixed ?? Int.random(in: 20_000..<32_768)
            let process = Process()
            // The script's own lifetime (60 s unless given) is a safety net for a server nobody stops; a test stops
            // its server itself, and a test slowed by a busy machine outlived the 60 s once (its last command found
            // the server gone): 10 minutes unless the test says.
            let lifetime = arguments.contains("--lifetime") ? [] : ["--lifetime", "600"]
            let command = ["/usr/bin/python3", Self.script, String(port), "--address", host] + lifetime + arguments
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
            if line == "ready" { return Started(port: port, process: process) }
            // Not ready: a taken port, or a traceback (a missing package) that spans lines.
            kill(process.processIdentifier, SIGKILL)
            lastOutput =
                line + "\n" + String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // The same port again: the old server's socket may linger a moment.
            if fixed != nil { usleep(100_000) }
        }
        throw ServerError(
            description: "rtsp-server.py did not start (scripts/test installs python3-gi, gir1.2-gst-rtsp-server-1.0 "
                + "and the GStreamer plugins): \(lastOutput)")
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the server: a camera that hangs, then comes back.
    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
    }

    /// Stops the server and returns what it printed after "ready" (`--print-first-packets`' lines).
    func stopAndReadOutput() -> String {
        stop()
        guard let output = process.standardOutput as? Pipe else { return "" }
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
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

    /// This host's end of the pair.
    let hostAddress: String

    init(_ name: String, subnet: Int) throws {
        self.name = name
        address = "10.77.\(subnet).2"
        hostAddress = "10.77.\(subnet).1"
        _ = try? runToolBlocking("/bin/bash", [Self.script, "down", name])
        _ = try runToolBlocking("/bin/bash", [Self.script, "up", name, String(subnet)])
    }

    /// A namespace of its own loopback alone (`127.0.0.1` there), multicast routed over it: what runs inside reaches
    /// nothing outside (its ``hostAddress`` is its own loopback's too).
    init(loopbackOnly name: String) throws {
        self.name = name
        address = "127.0.0.1"
        hostAddress = "127.0.0.1"
        _ = try? runToolBlocking("/bin/bash", [Self.script, "down", name])
        _ = try runToolBlocking("/bin/bash", [Self.script, "loopback", name])
    }

    /// `command` and its arguments, run inside the namespace (through `ip netns exec`).
    func command(_ program: String, _ arguments: [String]) -> (String, [String]) {
        ("/usr/sbin/ip", ["netns", "exec", name, program] + arguments)
    }

    deinit { _ = try? runToolBlocking("/bin/bash", [Self.script, "down", name]) }
}
