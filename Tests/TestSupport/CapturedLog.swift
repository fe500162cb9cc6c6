import Foundation
import Logging
import Testing

/// A swift-log handler that keeps every line, for tests that read what a session or pipeline logged.
public final class CapturedLog: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []

    public init() {}

    /// A logger at `level` that writes here.
    public func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "test") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// Every line so far: "<level> <message> <metadata>".
    public var lines: [String] { lock.withLock { stored } }

    /// The lines that contain `text`.
    public func lines(containing text: String) -> [String] { lines.filter { $0.contains(text) } }

    /// Records a test issue for each credential of the suite that a line holds.
    public func expectNoCredentials(from source: String) {
        for line in lines { TestSecrets.expectNone(in: line, from: "\(source)'s log") }
    }

    fileprivate func append(_ line: String) { lock.withLock { stored.append(line) } }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            log.append("\(event.level) \(event.message)" + (all.isEmpty ? "" : " \(all)"))
        }
    }
}
