// Plays N sessions of one RTSP URL at once through the library's API (RTSPSession.connect, then
// accessUnits(), counting units and bytes and keeping nothing) for M minutes, and samples the process's
// resident memory: what a recorder or an analytics service holding many cameras sees. With --audio, every
// track through media(): access units and audio frames.
//
// usage: soak-sessions URL [--sessions N] [--minutes M] [--sample-seconds S] [--transport tcp|udp] [--audio]
// Prints one line per sample: "<seconds> <RSS KiB> <units> <bytes> <sessions playing>", then a
// summary: RSS at minute 2 and at the end, growth between them, and memory per session (RSS at the end
// less RSS before the first connect, over N).
import RTSPClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Options {
    var url = ""
    var sessions = 20
    var minutes = 30.0
    var sampleSeconds = 10.0
    var transport = RTSPSessionOptions.Transport.tcp
    var audio = false

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            func value() throws -> String {
                guard let next = rest.popFirst() else { throw UsageError("\(argument) needs a value") }
                return next
            }
            switch argument {
            case "--audio": audio = true
            case "--sessions": sessions = Int(try value()) ?? 0
            case "--minutes": minutes = Double(try value()) ?? 0
            case "--sample-seconds": sampleSeconds = Double(try value()) ?? 0
            case "--transport":
                guard let parsed = RTSPSessionOptions.Transport(rawValue: try value()) else {
                    throw UsageError("--transport is tcp, udp or auto")
                }
                transport = parsed
            default: url = argument
            }
        }
        guard !url.isEmpty, sessions > 0, minutes > 0, sampleSeconds > 0 else {
            throw UsageError(
                "usage: soak-sessions URL [--sessions N] [--minutes M] [--sample-seconds S] [--transport tcp|udp]")
        }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What every session has received, added up.
actor Totals {
    var units = 0
    var bytes = 0
    var playing = 0
    var failures: [String] = []

    func started() { playing += 1 }
    func add(units: Int, bytes: Int) {
        self.units += units
        self.bytes += bytes
    }
    func ended(_ failure: String?) {
        playing -= 1
        if let failure { failures.append(failure) }
    }
}

/// The resident set size of this process, from /proc/self/status (Linux), in KiB.
func residentKiB() -> Int {
    let file = open("/proc/self/status", O_RDONLY)
    guard file >= 0 else { return -1 }
    defer { close(file) }
    var bytes = [UInt8](repeating: 0, count: 8192)
    let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
    guard count > 0 else { return -1 }
    let text = String(decoding: bytes[..<count], as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
}

func play(_ options: Options, totals: Totals) async {
    do {
        let session = try await RTSPSession.connect(
            to: options.url, options: RTSPSessionOptions(transport: options.transport))
        await totals.started()
        var units = 0
        var bytes = 0
        if options.audio {
            for try await unit in try session.media() {
                units += 1
                switch unit {
                case .video(let accessUnit): bytes += accessUnit.payloadSize
                case .audio(let frame): bytes += frame.bytes.count
                }
                if units % 30 == 0 {
                    await totals.add(units: units, bytes: bytes)
                    (units, bytes) = (0, 0)
                }
            }
        } else {
            for try await unit in try session.accessUnits() {
                units += 1
                bytes += unit.payloadSize
                if units % 30 == 0 {
                    await totals.add(units: units, bytes: bytes)
                    (units, bytes) = (0, 0)
                }
            }
        }
        await totals.ended(nil)
    } catch is CancellationError {
        await totals.ended(nil)
    } catch {
        await totals.ended("\(error)")
    }
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    let message = Array("\(error)\n".utf8)
    _ = message.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(64)
}
let before = residentKiB()
let totals = Totals()
let clock = ContinuousClock()
let start = clock.now
var samples: [(seconds: Double, rss: Int)] = []
await withTaskGroup(of: Void.self) { group in
    for _ in 0..<options.sessions { group.addTask { await play(options, totals: totals) } }
    let end = start + .milliseconds(Int64(options.minutes * 60_000))
    while clock.now < end {
        try? await Task.sleep(for: .milliseconds(Int64(options.sampleSeconds * 1000)))
        let elapsed = Double((clock.now - start).components.seconds)
        let rss = residentKiB()
        samples.append((elapsed, rss))
        print("\(Int(elapsed)) \(rss) \(await totals.units) \(await totals.bytes) \(await totals.playing)")
        fflush(nil)
    }
    group.cancelAll()
}
let failures = await totals.failures
for failure in failures.prefix(5) { print("failed: \(failure)") }
let atTwo = samples.first { $0.seconds >= 120 } ?? samples.first
if let atTwo, let last = samples.last, atTwo.rss > 0 {
    let growth = Double(last.rss - atTwo.rss) / Double(atTwo.rss) * 100
    print(
        "RSS before connecting \(before) KiB; at \(Int(atTwo.seconds)) s \(atTwo.rss) KiB; at \(Int(last.seconds)) s "
            + "\(last.rss) KiB: growth \((growth * 10).rounded() / 10) %; "
            + "\((last.rss - before) / options.sessions) KiB per session (\(options.sessions) sessions, "
            + "\(await totals.units) access units, \(failures.count) failed)")
}
