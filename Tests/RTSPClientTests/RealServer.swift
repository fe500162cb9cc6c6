import Foundation

/// gst-rtsp-server on loopback (`Fixtures/scripts/rtsp-server.py`), started for a test and stopped after it.
final class RealServer: @unchecked Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent("Fixtures/scripts/rtsp-server.py").path

    let port: Int
    private let process: Process

    var url: String { "rtsp://127.0.0.1:\(port)/test" }

    /// Starts the server with `arguments` (after the port) and waits for it to listen.
    init(_ arguments: [String]) throws {
        var lastOutput = ""
        for _ in 0..<5 {
            let port = Int.random(in: 30_000..<60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [Self.script, String(port)] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            // "ready" on the first line, or the reason it could not start (a taken port, a missing package).
            let line = Self.firstLine(output.fileHandleForReading)
            if line == "ready" {
                self.port = port
                self.process = process
                return
            }
            lastOutput = line
            kill(process.processIdentifier, SIGKILL)
        }
        throw ServerError(
            description: "rtsp-server.py did not start (scripts/test installs python3-gi, gir1.2-gst-rtsp-server-1.0 "
                + "and the GStreamer plugins): \(lastOutput)")
    }

    private static func firstLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { break }
            if byte == 0x0A {
                if bytes != Array("ready".utf8) && bytes.count < 4000 {
                    // A traceback spans lines: read what else there is.
                    bytes += Array(handle.readDataToEndOfFile())
                }
                break
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
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
