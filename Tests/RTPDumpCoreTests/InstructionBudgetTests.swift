import Foundation
import TestSupport
import Testing

/// The receive road's cost per packet, counted, not timed: callgrind counts the instructions `rtpdump extract`
/// spends in `NALListing.extract` (reading the capture, sorting its streams, reordering, depacketizing, handing
/// each access unit on) for h264-gst.pcap, and the count per packet must stay within the budget below. Counts do
/// not depend on the machine's load (the same binary on the same input gives the same count, hashing made
/// deterministic), so this runs in the suite where a timing could not: the next change that makes the road
/// slower fails here, not silently.
///
/// The budget is the count measured when it was set, plus 10 %. Measure again with the commands the test runs
/// (valgrind 3.19 reads no DWARF 5: the binary's debug information is stripped first):
///     strip --strip-debug -o /tmp/rtpdump .build/release/rtpdump
///     SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
///         --toggle-collect='$s11RTPDumpCore10NALListingO7extract_*RzlFZ' /tmp/rtpdump extract \
///         Fixtures/captures/h264-gst.pcap -o /dev/null
/// and divide by the capture's 1,079 packets. A change that costs more says so in its commit and raises the
/// budget there; one that costs less lowers it.
@Suite struct InstructionBudgetTests {
    /// Instructions per packet of h264-gst.pcap through `NALListing.extract`, in the suite's build (release,
    /// `-enable-testing`), on x86_64 with AVX2 (the start-code scan's path): 3,195 measured, plus 10 %.
    static let budget = 3514
    static let packets = 1079
    /// The function counted (its mangled name, without its closures).
    static let function = "$s11RTPDumpCore10NALListingO7extract_*RzlFZ"

    /// valgrind and strip are here (scripts/test installs them), on the machine kind the budget is for.
    static var canMeasure: Bool {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        return FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/strip") && cpu.contains(" avx2")
    }

    @Test(.enabled(if: RTPDumpBinary.present && canMeasure)) func extractStaysWithinItsInstructionBudget() async throws
    {
        let stripped = FileManager.default.temporaryDirectory.appendingPathComponent("rtpdump-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: stripped) }
        let strip = try await runProgram("/usr/bin/strip", ["--strip-debug", "-o", stripped, RTPDumpBinary.path])
        #expect(strip.status == 0, "\(strip.stderr)")
        let run = try await runProgram(
            "/usr/bin/valgrind",
            [
                "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=\(Self.function)", stripped,
                "extract", Fixtures.capture("h264-gst.pcap"), "-o", "/dev/null",
            ], environment: ["SWIFT_DETERMINISTIC_HASHING": "1"])
        let collected = run.stderr.split(separator: "\n").first { $0.contains("Collected :") }
        let count = try #require(
            collected.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") })
        #expect(count > 0, "callgrind counted nothing in \(Self.function): was it renamed? \(run.stderr.suffix(400))")
        let perPacket = count / Self.packets
        #expect(
            perPacket <= Self.budget,
            "extract spends \(perPacket) instructions a packet, past its budget of \(Self.budget)")
    }
}
