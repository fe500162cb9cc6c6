import Logging

/// What a live session tells (a break and the reconnect, the fallback to TCP, the first of each kind of
/// dropped packet), on stderr as `rtpdump: <message>`: notices and above, never a credential (the library
/// leaves them out, and escapes what peers sent).
struct DiagnosticLog: LogHandler {
    static let logger = Logger(label: "rtpdump") { _ in DiagnosticLog() }

    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        printError("rtpdump: \(event.message)")
    }
}
