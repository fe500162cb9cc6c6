import ArgumentParser
import Dispatch
import RTSPClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C and SIGTERM while a live session plays: the session is torn down (TEARDOWN, bounded by the
/// session's teardown timeout), so that the camera frees its session slot, and the command prints what it
/// gathered before exiting with 128 + the signal. A second signal exits at once.
enum Interruption {
    /// Where the signals are handled and `received` is read and written: one serial queue.
    private static let queue = DispatchQueue(label: "rtpdump.signals")
    /// The signal that interrupted the command, once one has; only on `queue`.
    nonisolated(unsafe) private static var received: Int32 = 0
    /// The dispatch sources, kept for the life of the process; only on `queue`.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// From now on SIGINT and SIGTERM end `session` instead of the process.
    static func tearDownOnSignal(_ session: RTSPSession) {
        queue.sync {
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    if received != 0 { _exit(128 + number) }
                    received = number
                    Task { await session.teardown() }
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// The exit status for a command that ran to its end after a signal, if one came.
    static var exitCode: ExitCode? {
        let number = queue.sync { received }
        return number == 0 ? nil : ExitCode(128 + number)
    }
}

/// Ends the command with 128 + the signal's number if a signal ended the session: after its output.
func exitIfInterrupted() throws {
    if let code = Interruption.exitCode { throw code }
}
