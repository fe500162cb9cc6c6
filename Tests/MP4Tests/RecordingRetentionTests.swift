import Foundation
import MP4
import MediaPipeline
import Testing

/// How long recordings are kept: the rule over sizes and times, a directory's files deleted by it, and a recorder
/// that keeps its own within a budget while it writes.
@Suite struct RecordingRetentionTests {
    typealias File = RecordingRetention.File

    @Test func theOldestGoFirstByAgeThenBySizeNeverTheFileBeingWritten() {
        let files = [
            File(path: "c", bytes: 300, modified: 1_000), File(path: "a", bytes: 100, modified: 400),
            File(path: "b", bytes: 200, modified: 700), File(path: "d", bytes: 400, modified: 1_300),
        ]
        // Older than 500 s at 1,400: a (1,000 s) and b (700 s).
        let byAge = RecordingRetention(maxAge: .seconds(500)).expired(files, now: 1_400, writing: [])
        #expect(byAge.map(\.path) == ["a", "b"])
        // 1,000 bytes in all, 650 allowed: a goes (900 left), b (700 left), c (400 left).
        let bySize = RecordingRetention(maxBytes: 650).expired(files, now: 1_400, writing: [])
        #expect(bySize.map(\.path) == ["a", "b", "c"])
        // The file being written is kept, though it is the oldest, and its bytes count.
        let writing = RecordingRetention(maxBytes: 650, maxAge: .seconds(500)).expired(
            files, now: 1_400, writing: ["a"])
        #expect(writing.map(\.path) == ["b", "c"])
        #expect(RecordingRetention().expired(files, now: 1e12, writing: []).isEmpty)
        #expect(RecordingRetention(maxBytes: 5_000).expired(files, now: 1_400, writing: []).isEmpty)
    }

    @Test func aDirectorysRecordingsOfOneNameAreDeletedByTheRule() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retention-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = [
            "cam.mp4", "cam-00001.mp4", "cam-00002.mp4", "cam-00003.mp4", "camera-00001.mp4", "cam-x.mp4",
            "cam-00004.txt",
        ]
        for (index, name) in names.enumerated() {
            let url = directory.appendingPathComponent(name)
            try Data(count: 1_000).write(to: url)
            // A day apart, the first the oldest.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 86_400)],
                ofItemAtPath: url.path)
        }
        let now = 1_700_000_000 + 10 * 86_400.0
        let rule = RecordingRetention(maxBytes: 2_500)
        let writing = directory.appendingPathComponent("cam-00003.mp4").path
        let deleted = try rule.apply(toDirectory: directory.path, prefix: "cam", writing: [writing], now: now)
        // cam's four recordings, 4,000 bytes: the two oldest go; camera's, cam-x's and the .txt are not cam's.
        #expect(deleted.map { URL(fileURLWithPath: $0).lastPathComponent } == ["cam.mp4", "cam-00001.mp4"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["cam-00002.mp4", "cam-00003.mp4", "cam-00004.txt", "cam-x.mp4", "camera-00001.mp4"])
        let missing = #expect(throws: MP4Error.self) {
            try rule.apply(toDirectory: directory.path + "/nowhere", writing: [])
        }
        #expect(missing.map { "\($0)" }?.contains("cannot read the directory") == true)
    }

    /// 20 s of a camera in 2 s segments with 150 kB allowed: as each file starts, the oldest go, the one being
    /// written never; what is left is the newest files, within the budget but for the file being written.
    @Test func aRecorderKeepsItsFilesWithinTheBudgetAsItWrites() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cam.mp4").path
        var files = MP4FileRecorder(path: path, segmented: true, retention: RecordingRetention(maxBytes: 150_000))
        var writer = FragmentedMP4Writer(
            tracks: EventRecorderTests.tracks, configuration: .init(segmentDuration: .seconds(2)))
        for (_, unit) in EventRecorderTests.units(from: 0, to: 20) { try writer.append(unit) { try files.write($0) } }
        try writer.finish { try files.write($0) }
        try files.close()
        #expect(files.files.count == 10)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let sizes = try left.map {
            try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($0).path)[.size] as? Int
                ?? 0
        }
        // Each segment is about 82 kB: at most the one written and one before it fit when a file starts.
        #expect(left.last == "cam-00010.mp4" && left.count <= 3, "\(left)")
        #expect(sizes.dropLast().reduce(0, +) <= 150_000, "\(sizes)")
        #expect(files.deleted.count == 10 - left.count)
        #expect(files.deleted.first.map { URL(fileURLWithPath: $0).lastPathComponent } == "cam-00001.mp4")
    }
}
